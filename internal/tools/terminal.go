package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/hermes-gateway/hermes/internal/faults"
)

const (
	defaultTerminalTimeout = 180 * time.Second
	maxTerminalTimeout     = 2 * time.Hour
	defaultOutputCap       = 64 << 10
	// pipeGrace bounds how long a finished command's output pipe may be
	// held open by a background child it left behind.
	pipeGrace = 2 * time.Second
)

// terminalTool runs a shell command (SPEC §6 "terminal").
type terminalTool struct{}

func (terminalTool) Spec() Spec {
	return spec("terminal", "Run a shell command with bash -c in the session directory. "+
		"Output is stdout and stderr combined, truncated past a limit. Dangerous commands "+
		"ask the user first; some commands are never run.", `{
  "type": "object",
  "properties": {
    "command": {"type": "string", "minLength": 1, "description": "The bash command line to run."},
    "timeout": {"type": "number", "exclusiveMinimum": 0, "maximum": 7200, "description": "Seconds before the command and its children are killed (default 180)."}
  },
  "required": ["command"],
  "additionalProperties": false
}`)
}

type terminalArgs struct {
	Command string   `json:"command"`
	Timeout *float64 `json:"timeout"`
}

func (terminalTool) Run(ctx context.Context, env *Env, raw json.RawMessage) (Result, error) {
	var a terminalArgs
	if err := decodeArgs(raw, &a); err != nil {
		return failf("%v", err), nil
	}
	if a.Command == "" {
		return failf("invalid arguments: command is empty"), nil
	}
	timeout, err := a.timeout(env)
	if err != nil {
		return failf("invalid arguments: %v", err), nil
	}
	if res, ok, err := consent(ctx, env, a.Command); !ok || err != nil {
		return res, err
	}
	return runCommand(ctx, env, a.Command, timeout)
}

func (a terminalArgs) timeout(env *Env) (time.Duration, error) {
	if a.Timeout == nil {
		if env.TerminalTimeout > 0 {
			return env.TerminalTimeout, nil
		}
		return defaultTerminalTimeout, nil
	}
	d := time.Duration(*a.Timeout * float64(time.Second))
	if *a.Timeout <= 0 || d > maxTerminalTimeout {
		return 0, fmt.Errorf("timeout must be in (0, %d] seconds", int(maxTerminalTimeout.Seconds()))
	}
	return d, nil
}

// consent classifies command and asks the Approver when it is dangerous.
// ok is false when the command must not run; res then tells the model why.
func consent(ctx context.Context, env *Env, command string) (res Result, ok bool, err error) {
	v := Classify(command)
	switch v.Level {
	case Hardline:
		return failf("blocked: this command %s and is never run (rule %s), not even with approval.", v.Reason, v.Pattern), false, nil
	case Dangerous:
		return ask(ctx, env, ApprovalRequest{Command: command, Description: v.Reason, Pattern: v.Pattern})
	}
	return Result{}, true, nil
}

// ask asks env.Approver; a nil Approver denies.
func ask(ctx context.Context, env *Env, req ApprovalRequest) (Result, bool, error) {
	if env.Approver != nil {
		allowed, err := env.Approver.Approve(ctx, req)
		if err != nil {
			return Result{}, false, fmt.Errorf("approve %q: %w", req.Pattern, err)
		}
		if allowed {
			return Result{}, true, nil
		}
	}
	return failf("denied by the user: %q was not run (it %s).", req.Command, req.Description), false, nil
}

// runCommand runs command in its own process group and kills the group
// when ctx ends or the timeout passes.
func runCommand(ctx context.Context, env *Env, command string, timeout time.Duration) (Result, error) {
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	out := newCappedBuffer(outputCap(env))
	cmd := exec.CommandContext(tctx, "bash", "-c", command)
	cmd.Dir = env.Cwd
	cmd.Env = append(ScrubbedEnv(os.Environ()), "HERMES_TOOL_PROCESS=1")
	cmd.Stdout, cmd.Stderr = out, out // one pipe: output stays in order
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return killGroup(cmd.Process.Pid) }
	cmd.WaitDelay = pipeGrace
	if err := cmd.Start(); err != nil {
		return failf("cannot start bash: %v", err), nil
	}
	pid := cmd.Process.Pid
	started(env, pid)
	faults.Hit(faults.ToolAfterStart)
	waitErr := cmd.Wait()
	exited(env, pid)
	faults.Hit(faults.ToolAfterExit)
	if ctx.Err() != nil {
		return Result{}, fmt.Errorf("terminal interrupted: %w", context.Cause(ctx))
	}
	return commandResult(out.String(), waitErr, tctx.Err() != nil, timeout), nil
}

// killGroup SIGKILLs the process group led by pid.
func killGroup(pid int) error {
	if err := syscall.Kill(-pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		return err
	}
	return nil
}

func commandResult(output string, waitErr error, timedOut bool, timeout time.Duration) Result {
	if timedOut {
		return failf("%s\n[timed out after %s; the command and its children were killed]", output, timeout)
	}
	var exitErr *exec.ExitError
	switch {
	case waitErr == nil || errors.Is(waitErr, exec.ErrWaitDelay):
		return Result{Output: output}
	case errors.As(waitErr, &exitErr):
		return failf("%s\n[exit code %d]", output, exitErr.ExitCode())
	}
	return failf("%s\n[command failed: %v]", output, waitErr)
}

func outputCap(env *Env) int {
	if env.OutputCap > 0 {
		return env.OutputCap
	}
	return defaultOutputCap
}

func started(env *Env, pid int) {
	if env.Processes != nil {
		env.Processes.Started(pid)
	}
}

func exited(env *Env, pid int) {
	if env.Processes != nil {
		env.Processes.Exited(pid)
	}
}
