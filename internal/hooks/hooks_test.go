package hooks

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParseErrorsNameTheKey(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"PreToolUse: 3", "hooks.PreToolUse: want a list"},
		{"Nope: []", "hooks.Nope: unknown event"},
		{"PreToolUse: [{matcher: '(', hooks: [{type: command, command: x}]}]", "hooks.PreToolUse[0].matcher"},
		{"Stop: [{hooks: [{type: shell, command: x}]}]", "hooks.Stop[0].hooks[0].type"},
		{"Stop: [{hooks: [{type: command, command: x, fail_close: true}]}]", "hooks.Stop[0].hooks[0].fail_close: unknown key"},
		{"Stop: [{hooks: [{type: command, command: x, timeout: -1}]}]", "hooks.Stop[0].hooks[0].timeout"},
		{"Stop: [{hooks: [{type: command, command: ''}]}]", "hooks.Stop[0].hooks[0].command"},
	} {
		_, err := Parse([]byte(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q) = %v; want an error with %q", tc.in, err, tc.want)
		}
	}
}

func TestMatching(t *testing.T) {
	t.Parallel()
	c, err := Parse([]byte(`hooks:
  PreToolUse:
    - matcher: terminal
      hooks: [{type: command, command: a}]
    - matcher: "write_file|patch"
      hooks: [{type: command, command: b}]
    - matcher: "*"
      hooks: [{type: command, command: c}]
    - hooks: [{type: command, command: d}]
`))
	if err != nil {
		t.Fatal(err)
	}
	got := func(tool string) string {
		var s []string
		for _, h := range c.Matching(PreToolUse, tool) {
			s = append(s, h.Command)
		}
		return strings.Join(s, "")
	}
	for tool, want := range map[string]string{"terminal": "acd", "patch": "bcd", "terminal2": "cd", "mcp__x__y": "cd"} {
		if g := got(tool); g != want {
			t.Errorf("Matching(%s) = %q; want %q", tool, g, want)
		}
	}
	if first, again := c.Digest(), c.Digest(); first == "" || first != again {
		t.Error("digest is not stable")
	}
}

func TestRunProtocol(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := &Runner{Policy: policyIn(dir), Env: []string{"PATH=" + os.Getenv("PATH")}, OutputCap: 1024}
	in := Input{Event: PreToolUse, ToolName: "terminal", SessionID: "s"}
	for _, tc := range []struct {
		cmd     string
		fc      bool
		timeout float64
		outcome string
		blocks  bool
		ask     bool
		reason  string
	}{
		{cmd: "exit 0", outcome: OutcomeOK},
		{cmd: "echo no >&2; exit 2", outcome: OutcomeBlocked, blocks: true, reason: "no"},
		{cmd: `echo '{"decision":"block","reason":"json no"}'`, outcome: OutcomeBlocked, blocks: true, reason: "json no"},
		{cmd: `echo '{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"d"}}'`, outcome: OutcomeBlocked, blocks: true, reason: "d"},
		{cmd: `echo '{"hookSpecificOutput":{"permissionDecision":"ask","permissionDecisionReason":"sure?"}}'`, outcome: OutcomeOK, ask: true, reason: "sure?"},
		{cmd: `echo '{"hookSpecificOutput":{"permissionDecision":"allow"}}'`, outcome: OutcomeOK},
		{cmd: "exit 3", outcome: OutcomeFailed},
		{cmd: "exit 3", fc: true, outcome: OutcomeFailed, blocks: true},
		{cmd: "sleep 30", timeout: 0.3, outcome: OutcomeTimeout},
		{cmd: "head -c 100000 /dev/zero; exit 0", outcome: OutcomeOK},
		{cmd: `grep -q '"tool_name":"terminal"' && exit 2 || exit 0`, outcome: OutcomeBlocked, blocks: true},
	} {
		res := r.Run(context.Background(), Command{Type: "command", Command: tc.cmd, FailClosed: tc.fc, Timeout: tc.timeout}, in)
		if res.Outcome != tc.outcome || res.Blocks != tc.blocks || res.Ask != tc.ask || (tc.reason != "" && res.Reason != tc.reason) {
			t.Errorf("%s: got outcome=%s blocks=%v ask=%v reason=%q", tc.cmd, res.Outcome, res.Blocks, res.Ask, res.Reason)
		}
	}
}

func TestTimeoutKillsTheGroup(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := &Runner{Policy: policyIn(dir), Env: []string{"PATH=" + os.Getenv("PATH")}}
	mark := filepath.Join(dir, "late")
	start := time.Now()
	res := r.Run(context.Background(), Command{Type: "command", Timeout: 0.3,
		Command: "(sleep 1; touch " + mark + ") & sleep 30"}, Input{Event: Stop})
	if res.Outcome != OutcomeTimeout || time.Since(start) > 5*time.Second {
		t.Fatalf("outcome %s after %s", res.Outcome, time.Since(start))
	}
	time.Sleep(1500 * time.Millisecond) // the background child would have touched mark by now
	if _, err := os.Stat(mark); err == nil {
		t.Fatal("a child of the timed-out hook survived its process group kill")
	}
}
