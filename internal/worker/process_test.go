package worker

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hermes-gateway/hermes/internal/agent"
	"github.com/hermes-gateway/hermes/internal/modeltest"
	"github.com/hermes-gateway/hermes/internal/tools"
)

func helperArgv(mode string) []string { return []string{os.Args[0], helperArg, mode} }

func TestRunMisbehavingWorkers(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		mode, outcome, errHas string
		cancel                bool
	}{
		{"garbage", agent.OutcomeFailed, "protocol error", false},
		{"die", agent.OutcomeFailed, "exit status 3: helper: boom", false},
		{"deaf", agent.OutcomeInterrupted, "did not stop", true},
		{"linger", agent.OutcomeCompleted, "", false},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithCancel(testCtx(t))
			defer cancel()
			h := newFakeHost()
			if tc.cancel {
				cancel()
			}
			res := run(ctx, helperArgv(tc.mode), Spec{Cwd: t.TempDir()}, h, 200*time.Millisecond)
			if res.Outcome != tc.outcome || (tc.errHas == "") != (res.Err == nil) ||
				(res.Err != nil && !strings.Contains(res.Err.Error(), tc.errHas)) {
				t.Fatalf("result = %+v, want %s with %q", res, tc.outcome, tc.errHas)
			}
			checkReaped(t, h)
		})
	}
}

// checkReaped: the worker's own pid was reported started, then exited, and
// the process is gone.
func checkReaped(t *testing.T, h *fakeHost) {
	t.Helper()
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.started) == 0 || len(h.exited) == 0 || h.exited[len(h.exited)-1] != h.started[0] {
		t.Fatalf("worker pid reports: started %v exited %v", h.started, h.exited)
	}
	if err := syscall.Kill(h.started[0], 0); !errors.Is(err, syscall.ESRCH) {
		t.Fatalf("worker %d still exists after Run: %v", h.started[0], err)
	}
}

func TestRunNoCommand(t *testing.T) {
	t.Parallel()
	res := Run(context.Background(), nil, Spec{}, newFakeHost())
	if res.Outcome != agent.OutcomeFailed || res.Err == nil {
		t.Fatalf("result = %+v", res)
	}
}

var (
	binOnce sync.Once
	binDir  string
	binPath string
	binErr  error
)

// hermesBinary builds ./cmd/hermes once per test binary.
func hermesBinary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		if binDir, binErr = os.MkdirTemp("", "hermes-worker-test-"); binErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "hermes")
		out, err := exec.Command("go", "build", "-o", binPath, "github.com/hermes-gateway/hermes/cmd/hermes").CombinedOutput()
		if err != nil {
			binErr = fmt.Errorf("%v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Skipf("cannot build hermes: %v", binErr)
	}
	return binPath
}

func removeBinary() {
	if binDir != "" {
		_ = os.RemoveAll(binDir)
	}
}

// TestRunRealWorkerIsolated runs the built binary: the key arrives over the
// pipe only; neither the worker nor its tools see the daemon's environment.
func TestRunRealWorkerIsolated(t *testing.T) {
	bin := hermesBinary(t)
	t.Setenv("OPENAI_API_KEY", "sk-parent-must-not-leak")
	t.Setenv("HERMES_HOME", "/parent/home/must-not-leak")
	t.Setenv("WORKER_CANARY", "plain-but-not-inherited") // ScrubbedEnv alone would keep it
	srv := modeltest.New(t)
	spec, victim, marker := turnSpec(t, srv)
	srvScriptEnvTurn(srv, victim, marker)
	spec.Toolsets = []string{"terminal"}
	h := newFakeHost()
	var workerEnv, workerArgs []byte
	h.approve = func(context.Context, tools.ApprovalRequest) (bool, error) {
		pid := h.firstStarted()
		workerEnv, _ = os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
		workerArgs, _ = os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		return true, nil
	}
	res := Run(testCtx(t), []string{bin, "worker"}, spec, h)
	if res.Outcome != agent.OutcomeCompleted || res.Text != "isolated" {
		t.Fatalf("result = %+v", res)
	}
	if !exists(marker) {
		t.Fatal("approved command did not run")
	}
	checkFreshEnv(t, "worker", strings.Split(string(bytes.TrimRight(workerEnv, "\x00")), "\x00"), false)
	if got := string(workerArgs); got != bin+"\x00worker\x00" {
		t.Fatalf("worker argv %q", got)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 || reqs[0].Header.Get("Authorization") != "Bearer sk-spec" {
		t.Fatalf("requests %d, auth %q", len(reqs), reqs[0].Header.Get("Authorization"))
	}
	toolEnv := reqs[1].ToolResults()[0].Content
	checkFreshEnv(t, "tool", strings.Split(strings.TrimSpace(toolEnv), "\n"), true)
	checkReaped(t, h)
}

func srvScriptEnvTurn(srv *modeltest.Server, victim, marker string) {
	srv.Script(
		modeltest.ToolCall("terminal", `{"command":"env"}`),
		modeltest.ToolCall("terminal", `{"command":"rm -r -- '`+victim+`' && touch '`+marker+`'"}`),
		modeltest.Text("isolated"),
	)
}

// checkFreshEnv: exactly PATH, HOME, LANG, TMPDIR (plus what bash and the
// terminal tool add, for a tool); never the parent's variables.
func checkFreshEnv(t *testing.T, who string, env []string, tool bool) {
	t.Helper()
	seen := map[string]bool{}
	for _, kv := range env {
		name, val, _ := strings.Cut(kv, "=")
		seen[name] = true
		switch {
		case strings.Contains(kv, "must-not-leak") || name == "OPENAI_API_KEY" || name == "WORKER_CANARY":
			t.Errorf("%s environment leaks %s", who, kv)
		case strings.HasPrefix(name, "HERMES_") && !(tool && kv == "HERMES_TOOL_PROCESS=1"):
			t.Errorf("%s environment has %s", who, kv)
		case name == "PATH" && val != workerPath:
			t.Errorf("%s PATH = %q", who, val)
		case !tool && name != "PATH" && name != "HOME" && name != "LANG" && name != "TMPDIR":
			t.Errorf("worker environment has %s beyond the fresh set", name)
		}
	}
	if !seen["PATH"] || (tool && !seen["HERMES_TOOL_PROCESS"]) {
		t.Errorf("%s environment lacks PATH (or HERMES_TOOL_PROCESS): %q", who, env)
	}
}

// TestRunRealWorkerInterrupt: cancelling ctx while a tool runs ends the
// turn interrupted, promptly, with the tool's process gone.
func TestRunRealWorkerInterrupt(t *testing.T) {
	t.Parallel()
	bin := hermesBinary(t)
	srv := modeltest.New(t)
	srv.Script(modeltest.ToolCall("terminal", `{"command":"sleep 120"}`))
	ctx, cancel := context.WithCancel(testCtx(t))
	defer cancel()
	h := newFakeHost()
	done := make(chan agent.Result, 1)
	go func() {
		done <- Run(ctx, []string{bin, "worker"}, Spec{BaseURL: srv.URL(), Model: "m", Input: "wait",
			Toolsets: []string{"terminal"}, Cwd: t.TempDir()}, h)
	}()
	h.await(testCtx(t), t, "the tool process", func() bool { return len(h.started) >= 2 })
	toolPID := h.startedAt(1)
	began := time.Now()
	cancel()
	res := <-done
	if res.Outcome != agent.OutcomeInterrupted || res.Err == nil {
		t.Fatalf("result = %+v", res)
	}
	if d := time.Since(began); d >= killGrace {
		t.Fatalf("the worker took %s to stop: it was killed, not cancelled", d)
	}
	if err := syscall.Kill(toolPID, 0); !errors.Is(err, syscall.ESRCH) {
		t.Fatalf("tool process %d survives the interrupt: %v", toolPID, err)
	}
	msgs := h.messages()
	if last := msgs[len(msgs)-1]; !strings.Contains(last.Content, "interrupted") {
		t.Fatalf("last message %+v", last)
	}
	checkReaped(t, h)
}

func (h *fakeHost) firstStarted() int { return h.startedAt(0) }

func (h *fakeHost) startedAt(i int) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.started[i]
}
