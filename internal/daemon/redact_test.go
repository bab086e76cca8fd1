package daemon

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"
)

func TestScrubSecrets(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{`Post "https://user:pw@api.example.com/v1/chat?key=abc&x=1": EOF`, `Post "https://[redacted]@api.example.com/v1/chat?[redacted]": EOF`},
		{"dial http://127.0.0.1:8080/v1/chat/completions refused", "dial http://127.0.0.1:8080/v1/chat/completions refused"},
		{"invalid key sk-proj-AbCdEf123456 given", "invalid key [redacted] given"},
		{"Authorization: Bearer abc.def.ghi", "Authorization: [redacted]"},
		{"token ghp_0123456789abcdefABCDEF and AKIAABCDEFGHIJKLMNOP", "token [redacted] and [redacted]"},
		{"model gpt-4.1-mini on task-runner", "model gpt-4.1-mini on task-runner"},
	}
	for _, tt := range tests {
		if got := scrubSecrets(tt.in); got != tt.want {
			t.Errorf("scrubSecrets(%q)\n got %q\nwant %q", tt.in, got, tt.want)
		}
	}
}

// TestLogRedaction: through the real handler options, string and error
// values are scrubbed and secret-named keys replaced.
func TestLogRedaction(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{ReplaceAttr: redactAttr}))
	log.Warn("model failed", "err", errors.New(`Post "http://u:p@h/v1?api_key=sk-abcdef1234": boom`),
		"detail", "upstream said sk-live-zzzzzzzz", "api_key", "anything")
	out := buf.String()
	for _, leak := range []string{"u:p@", "api_key=", "sk-abcdef1234", "sk-live-zzzzzzzz", "anything"} {
		if strings.Contains(out, leak) {
			t.Errorf("log line holds %q: %s", leak, out)
		}
	}
}
