package session

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-gateway/hermes/internal/protocol"
)

// env is a throwaway profile: a home, a plain directory, a code workspace
// and a skills directory, plus the Defaults a default config.yaml yields.
type env struct {
	root, home, plain, ws, skills string
	d                             Defaults
}

func newEnv(t testing.TB) env {
	t.Helper()
	root := t.TempDir()
	e := env{
		root:   root,
		home:   mkdir(t, root, "home"),
		plain:  mkdir(t, root, "plain"),
		ws:     mkdir(t, root, "ws"),
		skills: mkdir(t, root, "skills"),
	}
	writeFile(t, filepath.Join(e.ws, "go.mod"), "module x\n")
	writeFile(t, filepath.Join(e.skills, "review", "SKILL.md"), "Review carefully.\n")
	writeFile(t, filepath.Join(e.skills, "style", "SKILL.md"), "Use gofmt.\n")
	e.d = Defaults{
		ProfileID: "prof-1",
		HomeDir:   e.home,
		Model:     "gpt-default",
		Provider:  "custom",
		BaseURL:   "http://127.0.0.1:11434/v1",
		Providers: map[string]string{"openrouter": "https://openrouter.ai/api/v1"},
		MaxTurns:  90,
		Streaming: true,
		PlatformToolsets: map[string][]string{
			"cli": {"terminal", "file", "clarify", "todo"},
			"acp": {"terminal", "file", "clarify"},
		},
		SkillsDir:      e.skills,
		ConfigSnapshot: map[string]any{"model": map[string]any{"default": "gpt-default", "api_key_env": "OPENAI_API_KEY"}},
	}
	return e
}

func mkdir(t testing.TB, parts ...string) string {
	t.Helper()
	p := filepath.Join(parts...)
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func writeFile(t testing.TB, p, body string) {
	t.Helper()
	mkdir(t, filepath.Dir(p))
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func ptr[T any](v T) *T { return &v }

// params decodes a session.create params object (as the strict rpc decoder
// would for well-typed input).
func params(t *testing.T, js string) protocol.SessionCreateParams {
	t.Helper()
	var p protocol.SessionCreateParams
	if err := json.Unmarshal([]byte(js), &p); err != nil {
		t.Fatalf("params %s: %v", js, err)
	}
	return p
}

// wantErr checks err is a *protocol.Error with reason and a detail holding
// detail ("" = no error expected).
func wantErr(t *testing.T, err error, reason protocol.Reason, detail string) {
	t.Helper()
	if reason == "" {
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		return
	}
	var pe *protocol.Error
	if !errors.As(err, &pe) {
		t.Fatalf("error = %v, want *protocol.Error %s", err, reason)
	}
	if pe.Reason != reason || !strings.Contains(pe.Detail, detail) {
		t.Fatalf("error = %s / %q, want %s containing %q", pe.Reason, pe.Detail, reason, detail)
	}
}
