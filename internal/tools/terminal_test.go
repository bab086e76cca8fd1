package tools

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hermes-gateway/hermes/internal/sandbox"
)

func TestTerminal(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		args    any
		cap     int
		want    string
		wantErr bool
	}{
		{"cwd", map[string]any{"command": "pwd"}, 0, "<cwd>", false},
		{"order", map[string]any{"command": "echo a; echo b >&2; echo c"}, 0, "a\nb\nc\n", false},
		{"exit code", map[string]any{"command": "echo out; exit 3"}, 0, "[exit code 3]", true},
		{"marker env", map[string]any{"command": "echo $HERMES_TOOL_PROCESS"}, 0, "1\n", false},
		{"cap", map[string]any{"command": "head -c 5000 /dev/zero | tr '\\0' a"}, 100, "[output truncated", false},
		{"timeout", map[string]any{"command": "sleep 30", "timeout": 0.2}, 0, "[timed out", true},
		{"bad timeout", map[string]any{"command": "true", "timeout": -1}, 0, "invalid arguments", true},
		{"empty", map[string]any{"command": ""}, 0, "command is empty", true},
		{"unknown field", `{"command":"true","cmd":"x"}`, 0, "unknown field", true},
		{"escalate without reason", map[string]any{"command": "true", "escalate": true}, 0, "needs a justification", true},
		{"reason without escalate", map[string]any{"command": "true", "justification": "x"}, 0, "only for escalate", true},
		{"hardline", map[string]any{"command": "mkfs.ext4 /dev/hermes-test-none"}, 0, "blocked", true},
		{"dangerous, no approver", map[string]any{"command": "git reset --hard"}, 0, "denied by the user", true},
	}
	for _, box := range launchers(t) {
		for _, tt := range tests {
			t.Run(box.name+"/"+tt.name, func(t *testing.T) {
				t.Parallel()
				cwd := t.TempDir()
				res := run(t, &Env{Cwd: cwd, OutputCap: tt.cap, Sandbox: box.l}, "terminal", tt.args)
				want := strings.ReplaceAll(tt.want, "<cwd>", cwd)
				if !strings.Contains(res.Output, want) || res.IsError != tt.wantErr {
					t.Fatalf("got %+v, want output containing %q, IsError %v", res, want, tt.wantErr)
				}
				if tt.cap > 0 && len(res.Output) > tt.cap+100 {
					t.Fatalf("output of %d bytes exceeds the cap %d", len(res.Output), tt.cap)
				}
			})
		}
	}
}

type namedLauncher struct {
	name string
	l    *sandbox.Launcher // nil = bare
}

// launchers are the ways the terminal tests run commands: bare (no
// launcher) and through a real auto-mode launcher re-executing this test
// binary (TestMain serves the helper).
func launchers(t *testing.T) []namedLauncher {
	return []namedLauncher{{"bare", nil}, {"sandboxed", newLauncher(t, sandbox.ModeAuto)}}
}

func newLauncher(t *testing.T, mode sandbox.Mode) *sandbox.Launcher {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return sandbox.New(exe, mode)
}

// TestTerminalEnvironmentAllowList is not parallel: it sets process env
// vars. Only the allow-list and terminal.env_passthrough reach a tool.
func TestTerminalEnvironmentAllowList(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-leak")
	t.Setenv("HERMES_GATEWAY_INTERNAL", "internal-leak")
	t.Setenv("SLACK_WEBHOOK_URL", "https://hooks.example/leak") // no secret word in the name
	t.Setenv("HERMES_TEST_PASSTHROUGH", "passed")
	for _, box := range launchers(t) {
		env := &Env{Cwd: t.TempDir(), Sandbox: box.l, EnvPassthrough: []string{"HERMES_TEST_*", "SLACK_NOT_THIS"}}
		res := run(t, env, "terminal", map[string]any{"command": "env"})
		for _, leak := range []string{"sk-leak", "internal-leak", "hooks.example", "passed"} {
			if strings.Contains(res.Output, leak) {
				t.Errorf("%s: tool environment contains %q", box.name, leak)
			}
		}
		if !strings.Contains(res.Output, "PATH=") || !strings.Contains(res.Output, "HERMES_TOOL_PROCESS=1") {
			t.Errorf("%s: tool environment lacks PATH or HERMES_TOOL_PROCESS:\n%s", box.name, res.Output)
		}
	}
	t.Setenv("MY_TOOL_SETTING", "through")
	res := run(t, &Env{Cwd: t.TempDir(), EnvPassthrough: []string{"MY_TOOL_*"}}, "terminal", map[string]any{"command": "env"})
	if !strings.Contains(res.Output, "MY_TOOL_SETTING=through") {
		t.Errorf("terminal.env_passthrough MY_TOOL_* did not pass MY_TOOL_SETTING:\n%s", res.Output)
	}
}

func TestTerminalApprovalBeforeRun(t *testing.T) {
	t.Parallel()
	for _, allow := range []bool{true, false} {
		t.Run(strconv.FormatBool(allow), func(t *testing.T) {
			t.Parallel()
			cwd := t.TempDir()
			victim, marker := filepath.Join(cwd, "victim"), filepath.Join(cwd, "marker")
			if err := os.Mkdir(victim, 0o755); err != nil {
				t.Fatal(err)
			}
			cmd := "rm -r -- '" + victim + "' && touch '" + marker + "'"
			ap := &fakeApprover{allow: allow, check: func() {
				if exists(marker) || !exists(victim) {
					t.Error("the command ran before consent")
				}
			}}
			res := run(t, &Env{Cwd: cwd, Approver: ap}, "terminal", map[string]any{"command": cmd})
			reqs := ap.requests()
			if len(reqs) != 1 || reqs[0].Command != cmd || reqs[0].Pattern != "rm_recursive" || reqs[0].Description == "" {
				t.Fatalf("approval requests = %+v, want exactly one for %q", reqs, cmd)
			}
			if exists(marker) != allow || exists(victim) == allow {
				t.Fatalf("allow=%v: marker exists %v, victim exists %v", allow, exists(marker), exists(victim))
			}
			if !allow && (!res.IsError || !strings.Contains(res.Output, "denied by the user")) {
				t.Fatalf("denied result = %+v", res)
			}
		})
	}
}

func TestTerminalHardlineNeverReachesApprover(t *testing.T) {
	t.Parallel()
	cwd := t.TempDir()
	marker := filepath.Join(cwd, "marker")
	for _, cmd := range []string{
		"touch " + marker + "; mkfs.ext4 /dev/hermes-test-none",
		"touch " + marker + " && poweroff --help",
		"touch " + marker + "; kill -1 2147483646",
	} {
		res := run(t, &Env{Cwd: cwd, Approver: failApprover{t}}, "terminal", map[string]any{"command": cmd})
		if !res.IsError || !strings.Contains(res.Output, "blocked") || exists(marker) {
			t.Fatalf("%q: got %+v (marker exists %v), want blocked and nothing run", cmd, res, exists(marker))
		}
	}
}

func TestTerminalCancelKillsProcessGroup(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rec := &pidRecorder{started: make(chan int, 1)}
	env := &Env{Cwd: t.TempDir(), Processes: rec}
	done := make(chan error, 1)
	go func() {
		_, err := terminalTool{}.Run(ctx, env, []byte(`{"command":"sleep 30 & sleep 30"}`))
		done <- err
	}()
	pgid := <-rec.started
	await(t, func() bool { return groupAlive(pgid) >= 2 }) // bash's children are up
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Run after cancel = %v, want context.Canceled", err)
	}
	await(t, func() bool { return groupAlive(pgid) == 0 })
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.exited) != 1 || rec.exited[0] != pgid {
		t.Fatalf("Exited calls = %v, want [%d]", rec.exited, pgid)
	}
}

func TestTerminalTimeoutKillsProcessGroup(t *testing.T) {
	t.Parallel()
	rec := &pidRecorder{started: make(chan int, 1)}
	env := &Env{Cwd: t.TempDir(), Processes: rec, TerminalTimeout: 300 * time.Millisecond}
	res := run(t, env, "terminal", map[string]any{"command": "sleep 30 & sleep 30; echo never"})
	if !res.IsError || !strings.Contains(res.Output, "timed out") || strings.Contains(res.Output, "never") {
		t.Fatalf("got %+v, want a timeout", res)
	}
	pgid := <-rec.started
	await(t, func() bool { return groupAlive(pgid) == 0 })
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// groupAlive counts the live (non-zombie) processes of process group pgid.
func groupAlive(pgid int) int {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	n := 0
	for _, p := range stats {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		// fields after "(comm)": state ppid pgrp …
		_, rest, ok := strings.Cut(string(b), ") ")
		f := strings.Fields(rest)
		if ok && len(f) > 2 && f[2] == strconv.Itoa(pgid) && f[0] != "Z" && f[0] != "X" {
			n++
		}
	}
	return n
}

// await polls cond until it holds or 10 s pass.
func await(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 10s")
		}
		<-tick.C
	}
}
