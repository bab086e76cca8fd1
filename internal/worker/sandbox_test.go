package worker

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-gateway/hermes/internal/agent"
	"github.com/hermes-gateway/hermes/internal/modeltest"
	"github.com/hermes-gateway/hermes/internal/sandbox"
)

// TestServeRunsToolsInTheSandbox: a worker turn whose spec carries the
// session's sandbox runs its terminal commands under it: a hidden file is
// not readable and a write outside the writable roots does not happen,
// while the cwd stays writable.
func TestServeRunsToolsInTheSandbox(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if st := sandbox.New(exe, sandbox.ModeAuto).Status(); st.Level == sandbox.LevelNone {
		t.Skipf("no sandbox on this machine: %s", st.Detail)
	}
	root := t.TempDir()
	cwd, secrets, outside := mk(t, root, "cwd"), mk(t, root, "secrets"), mk(t, root, "outside")
	secret := filepath.Join(secrets, "key")
	if err := os.WriteFile(secret, []byte("sk-hidden-canary"), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := modeltest.New(t)
	cmd := "cat '" + secret + "'; touch '" + filepath.Join(outside, "escaped") + "'; touch inside; echo done"
	srv.Script(modeltest.ToolCall("terminal", `{"command":"`+strings.ReplaceAll(cmd, `"`, `\"`)+`"}`), modeltest.Reply{Text: "ok"})
	spec := Spec{BaseURL: srv.URL(), Model: "m", Input: "go", Toolsets: []string{"terminal"}, Cwd: cwd,
		Sandbox: &SandboxSpec{Exe: exe, Mode: sandbox.ModeAuto, Policy: sandbox.Policy{HiddenPaths: []string{secrets}, Network: true}}}
	res := serveInProcess(testCtx(t), t, spec, newFakeHost())
	if res.Outcome != agent.OutcomeCompleted {
		t.Fatalf("result = %+v", res)
	}
	out := srv.Requests()[1].ToolResults()[0].Content
	if strings.Contains(out, "sk-hidden-canary") || exists(filepath.Join(outside, "escaped")) {
		t.Fatalf("the sandbox did not hold (escaped file exists %v):\n%s", exists(filepath.Join(outside, "escaped")), out)
	}
	if !exists(filepath.Join(cwd, "inside")) || !strings.Contains(out, "done") {
		t.Fatalf("the command did not run in its cwd:\n%s", out)
	}
}

func mk(t *testing.T, parts ...string) string {
	t.Helper()
	p := filepath.Join(parts...)
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}
