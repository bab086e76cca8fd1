package ids

import (
	"regexp"
	"testing"
)

func TestNewFormats(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		prefix string
		n      int
		re     string
	}{
		{"", 16, `^[0-9a-f]{32}$`},           // admission, prompt, transport, instance, request ids
		{"call_", 12, `^call_[0-9a-f]{24}$`}, // tool-call ids the model did not send
		{"tui-", 12, `^tui-[0-9a-f]{24}$`},   // client request ids
		{"oneshot-", 16, `^oneshot-[0-9a-f]{32}$`},
		{"x", 0, `^x$`},
	} {
		got := New(c.prefix, c.n)
		if !regexp.MustCompile(c.re).MatchString(got) {
			t.Errorf("New(%q, %d) = %q, want %s", c.prefix, c.n, got, c.re)
		}
	}
}

func TestNewIsRandom(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for range 1000 {
		id := New("", 16)
		if seen[id] {
			t.Fatalf("New repeated %q", id)
		}
		seen[id] = true
	}
}
