package agent_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-gateway/hermes/internal/agent"
)

func TestSystemPrompt(t *testing.T) {
	t.Parallel()
	cwd := "/tmp/wéird dir/with spaces"
	p := agent.SystemPrompt(agent.PromptInput{Cwd: cwd, SessionID: "local-abc", Platform: "cli", Skills: "skill body", Rules: "rule body"})
	for _, want := range []string{cwd, "Surface: cli", "skill body", "rule body"} {
		if !strings.Contains(p, want) {
			t.Errorf("prompt lacks %q:\n%s", want, p)
		}
	}
	if strings.Contains(p, "local-abc") {
		t.Error("session id named without PassSessionID")
	}
	p = agent.SystemPrompt(agent.PromptInput{Cwd: cwd, SessionID: "local-abc", PassSessionID: true})
	if !strings.Contains(p, "Session ID: local-abc") || strings.Contains(p, "# Skills") || strings.Contains(p, "# Project rules") {
		t.Errorf("prompt:\n%s", p)
	}
}

func TestLoadRules(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if got := agent.LoadRules(dir); got != "" {
		t.Fatalf("empty dir: %q", got)
	}
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("AGENTS.md", "use tabs\n")
	write(".hermes.md", strings.Repeat("é", agent.MaxRulesBytes)) // 2 bytes per rune: over the cap
	got := agent.LoadRules(dir)
	if !strings.HasPrefix(got, "## AGENTS.md\n\nuse tabs\n\n## .hermes.md\n\n") || !strings.HasSuffix(got, "[truncated]") {
		t.Fatalf("rules = %.80q … %q", got, got[len(got)-20:])
	}
	if len(got) > agent.MaxRulesBytes+100 || !strings.Contains(got, "é") {
		t.Fatalf("cap not applied: %d bytes", len(got))
	}

	other := t.TempDir()
	if err := os.Mkdir(filepath.Join(other, "AGENTS.md"), 0o700); err != nil {
		t.Fatal(err)
	}
	if got := agent.LoadRules(other); got != "" {
		t.Fatalf("directory named AGENTS.md was read: %q", got)
	}
}
