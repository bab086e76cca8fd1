package agent

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// MaxRulesBytes caps each rules file LoadRules reads.
const MaxRulesBytes = 32 << 10

// rulesFiles are read from the cwd, in this order.
var rulesFiles = []string{"AGENTS.md", ".hermes.md"}

// PromptInput is what the system prompt is rendered from; it is frozen with
// the session.
type PromptInput struct {
	Cwd           string // the session cwd, named verbatim
	SessionID     string // named only when PassSessionID
	Platform      string // cli, tui, desktop, acp
	Skills        string // rendered skills, "" = none
	Rules         string // LoadRules output, "" = none
	PassSessionID bool
}

// SystemPrompt renders the system message of every request of a session.
func SystemPrompt(p PromptInput) string {
	var b strings.Builder
	b.WriteString("You are Hermes, an AI coding agent. You help the user with software tasks by " +
		"reasoning step by step and using the tools you are given. Prefer running tools over guessing; " +
		"keep answers concise and say what you changed.\n\n")
	fmt.Fprintf(&b, "Working directory: %s\n", p.Cwd)
	b.WriteString("Commands and relative paths run in this directory.\n")
	if p.Platform != "" {
		fmt.Fprintf(&b, "Surface: %s\n", p.Platform)
	}
	if p.PassSessionID && p.SessionID != "" {
		fmt.Fprintf(&b, "Session ID: %s\n", p.SessionID)
	}
	if s := strings.TrimSpace(p.Skills); s != "" {
		b.WriteString("\n# Skills\n\n" + s + "\n")
	}
	if s := strings.TrimSpace(p.Rules); s != "" {
		b.WriteString("\n# Project rules\n\nFollow these instructions from the workspace.\n\n" + s + "\n")
	}
	return b.String()
}

// LoadRules returns AGENTS.md and .hermes.md of cwd, each under a heading
// and capped at MaxRulesBytes; missing, unreadable or non-regular files are
// skipped. "" when there are none.
func LoadRules(cwd string) string {
	var parts []string
	for _, name := range rulesFiles {
		text, ok := readCapped(filepath.Join(cwd, name), MaxRulesBytes)
		if !ok || strings.TrimSpace(text) == "" {
			continue
		}
		parts = append(parts, "## "+name+"\n\n"+strings.TrimSpace(text))
	}
	return strings.Join(parts, "\n\n")
}

func readCapped(path string, limit int) (string, bool) {
	st, err := os.Stat(path)
	if err != nil || !st.Mode().IsRegular() {
		return "", false
	}
	f, err := os.Open(path)
	if err != nil {
		return "", false
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, int64(limit)+1))
	if err != nil {
		return "", false
	}
	if len(b) > limit {
		return strings.ToValidUTF8(string(b[:limit]), "") + "\n[truncated]", true
	}
	return string(b), true
}
