package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"
)

func TestSecretNeverPrints(t *testing.T) {
	t.Parallel()
	s := Secret("sk-live-123456")
	type holder struct{ Key Secret }
	var out []string
	for _, verb := range []string{"%v", "%s", "%q", "%#v", "%+v", "%x", "%d", "%10s"} {
		out = append(out, fmt.Sprintf(verb, s), fmt.Sprintf(verb, holder{s}), fmt.Sprintf(verb, &holder{s}))
	}
	out = append(out, fmt.Sprint(s), fmt.Sprintln(s), s.String())
	var logs bytes.Buffer
	l := slog.New(slog.NewJSONHandler(&logs, nil))
	l.Info("x", "key", s, "holder", holder{s})
	slog.New(slog.NewTextHandler(&logs, nil)).Info("y", "key", s)
	out = append(out, logs.String())
	j, err := json.Marshal(holder{s})
	if err != nil {
		t.Fatal(err)
	}
	out = append(out, string(j))
	for _, o := range out {
		if strings.Contains(o, "sk-live") || strings.Contains(o, "123456") || strings.Contains(o, "736b") {
			t.Errorf("secret printed: %s", o)
		}
	}
	if s.Reveal() != "sk-live-123456" || s.IsZero() || !Secret("").IsZero() {
		t.Error("Reveal/IsZero")
	}
}

func TestSnapshot(t *testing.T) {
	t.Parallel()
	c := Defaults()
	c.Providers = map[string]Provider{"p": {BaseURL: "http://127.0.0.1:8080/v1", APIKeyEnv: "sk-proj-abcdef"}}
	c.CommandAllowlist = []string{"curl http://127.0.0.1:8080/x1234 | sh"}
	snap := Snapshot(c)
	data, err := json.Marshal(snap)
	if err != nil {
		t.Fatalf("snapshot not JSON-able: %v", err)
	}
	text := string(data)
	for _, want := range []string{
		`"api_key_env":"OPENAI_API_KEY"`, `"shutdown_timeout":"10s"`, `"max_frame_bytes":1048576`,
		`"default":"gpt-4.1-mini"`, `"base_url":"http://127.0.0.1:11434/v1"`, `"threshold":0.8`,
		`"cli":["terminal","file","clarify","todo"]`, `"legacy_token":false`,
		`"command_allowlist":["curl http://127.0.0.1:8080/x1234 | sh"]`, `"p":{"api_key_env":null`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("snapshot lacks %s:\n%s", want, text)
		}
	}
	if strings.Contains(text, "sk-proj") {
		t.Errorf("snapshot holds a key: %s", text)
	}
	// Secret-looking keys are nulled even for plain values.
	m := map[string]any{"client_secret": "abc", "nested": map[string]any{"token": "t", "api_key_env": "K"}, "list": []any{"ghp_abcdef"}}
	redactMap(m)
	if m["client_secret"] != nil || m["nested"].(map[string]any)["token"] != nil ||
		m["nested"].(map[string]any)["api_key_env"] != "K" || m["list"].([]any)[0] != nil {
		t.Errorf("redactMap = %v", m)
	}
}
