package tools

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hermes-gateway/hermes/internal/sandbox"
)

// TestTerminalEscalation: escalate asks a mandatory escalation request
// after the dangerous-command approval, and the command runs only on
// "once".
func TestTerminalEscalation(t *testing.T) {
	t.Parallel()
	for _, allow := range []bool{true, false} {
		t.Run(strconv.FormatBool(allow), func(t *testing.T) {
			t.Parallel()
			cwd := t.TempDir()
			marker := filepath.Join(cwd, "marker")
			cmd := "touch '" + marker + "'"
			ap := &fakeApprover{allow: allow, check: func() {
				if exists(marker) {
					t.Error("the command ran before consent")
				}
			}}
			env := &Env{Cwd: cwd, Approver: ap, Sandbox: newLauncher(t, sandbox.ModeAuto)}
			res := run(t, env, "terminal", map[string]any{"command": cmd, "escalate": true, "justification": "write ~/.npmrc"})
			want := []ApprovalRequest{{
				Kind: KindEscalation, Mandatory: true, Command: cmd,
				Description: "run outside the sandbox: write ~/.npmrc",
			}}
			if diff := cmp.Diff(want, ap.requests()); diff != "" {
				t.Fatalf("approval requests (-want +got):\n%s", diff)
			}
			if exists(marker) != allow || res.IsError == allow {
				t.Fatalf("allow=%v: marker exists %v, result %+v", allow, exists(marker), res)
			}
		})
	}
}

// TestTerminalEscalationAfterDangerous: a dangerous command that escalates
// is asked about twice, the command first; a denied command is never
// offered for escalation.
func TestTerminalEscalationAfterDangerous(t *testing.T) {
	t.Parallel()
	for _, allow := range []bool{true, false} {
		cwd := t.TempDir()
		ap := &fakeApprover{allow: allow}
		env := &Env{Cwd: cwd, Approver: ap, Sandbox: newLauncher(t, sandbox.ModeAuto)}
		run(t, env, "terminal", map[string]any{"command": "git reset --hard", "escalate": true, "justification": "x"})
		var kinds []string
		for _, r := range ap.requests() {
			kinds = append(kinds, r.Kind)
		}
		want := []string{""}
		if allow {
			want = append(want, KindEscalation)
		}
		if diff := cmp.Diff(want, kinds); diff != "" {
			t.Fatalf("allow=%v: request kinds (-want +got):\n%s", allow, diff)
		}
	}
}

// TestTerminalEscalationWithoutSandbox: with no sandbox in force there is
// nothing to leave, so nobody is asked.
func TestTerminalEscalationWithoutSandbox(t *testing.T) {
	t.Parallel()
	for _, l := range []*sandbox.Launcher{nil, newLauncher(t, sandbox.ModeOff)} {
		cwd := t.TempDir()
		res := run(t, &Env{Cwd: cwd, Approver: failApprover{t}, Sandbox: l}, "terminal",
			map[string]any{"command": "echo ran", "escalate": true, "justification": "x"})
		if res.IsError || !strings.Contains(res.Output, "ran") {
			t.Fatalf("got %+v, want the command run", res)
		}
	}
}

// TestTerminalStrictRefusal: when the launcher cannot build the sandbox
// the mode demands, the command is not run (never bare) and the model is
// told why.
func TestTerminalStrictRefusal(t *testing.T) {
	t.Parallel()
	l := newLauncher(t, sandbox.ModeStrict)
	cwd := t.TempDir()
	if _, err := l.Command(context.Background(), sandbox.Policy{Cwd: cwd}, nil, "true"); !errors.Is(err, sandbox.ErrUnavailable) {
		t.Skipf("the strict sandbox can be built here (%v); nothing to refuse", err)
	}
	marker := filepath.Join(cwd, "marker")
	res := run(t, &Env{Cwd: cwd, Sandbox: l}, "terminal", map[string]any{"command": "touch '" + marker + "'"})
	if !res.IsError || !strings.Contains(res.Output, "not run: the sandbox could not be built (sandbox.mode strict)") || exists(marker) {
		t.Fatalf("got %+v (marker exists %v), want a refusal and nothing run", res, exists(marker))
	}
}

// TestTerminalSandboxedKillsOnCancel: the tracked pid is the sandbox's
// (the helper's), and cancelling the turn leaves no process of it behind.
func TestTerminalSandboxedKillsOnCancel(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rec := &pidRecorder{started: make(chan int, 1)}
	cwd := t.TempDir()
	env := &Env{Cwd: cwd, Processes: rec, Sandbox: newLauncher(t, sandbox.ModeAuto)}
	done := make(chan error, 1)
	go func() {
		_, err := terminalTool{}.Run(ctx, env, []byte(`{"command":"sleep 30 & touch up; sleep 30"}`))
		done <- err
	}()
	pgid := <-rec.started
	await(t, func() bool { return exists(filepath.Join(cwd, "up")) }) // the command runs
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Run after cancel = %v, want context.Canceled", err)
	}
	await(t, func() bool { return groupAlive(pgid) == 0 })
	if _, err := os.Stat("/proc/" + strconv.Itoa(pgid)); err == nil {
		t.Fatalf("sandbox process %d still exists after the turn ended", pgid)
	}
}
