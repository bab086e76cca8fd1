package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/hermes-gateway/hermes/internal/faults"
	"github.com/hermes-gateway/hermes/internal/sandbox"
)

const (
	defaultTerminalTimeout = 180 * time.Second
	maxTerminalTimeout     = 2 * time.Hour
	defaultOutputCap       = 64 << 10
	// pipeGrace bounds how long a finished command's output pipe may be
	// held open by a background child it left behind.
	pipeGrace = 2 * time.Second
)

// terminalTool runs a shell command (docs/protocol.md#tools "terminal").
type terminalTool struct{}

func (terminalTool) Spec() Spec {
	return spec("terminal", "Run a shell command with bash -c in the session directory, inside a sandbox: "+
		"the command may read most files but write only the session directory, its private /tmp and the "+
		"configured writable roots; credentials and the gateway's own files are hidden. "+
		"Output is stdout and stderr combined, truncated past a limit. Dangerous commands "+
		"ask the user first; some commands are never run. If a command genuinely needs to write outside "+
		"the sandbox (it failed with permission denied or a read-only file system), call terminal again with "+
		`"escalate": true and a "justification" saying why: the user is asked every time and may refuse.`, `{
  "type": "object",
  "properties": {
    "command": {"type": "string", "minLength": 1, "description": "The bash command line to run."},
    "timeout": {"type": "number", "exclusiveMinimum": 0, "maximum": 7200, "description": "Seconds before the command and its children are killed (default 180)."},
    "escalate": {"type": "boolean", "description": "Ask the user to run this command outside the sandbox (only after it failed inside). Needs justification."},
    "justification": {"type": "string", "minLength": 1, "maxLength": 1000, "description": "With escalate: why the command must run outside the sandbox, shown to the user."}
  },
  "required": ["command"],
  "additionalProperties": false
}`)
}

type terminalArgs struct {
	Command       string   `json:"command"`
	Timeout       *float64 `json:"timeout"`
	Escalate      bool     `json:"escalate"`
	Justification string   `json:"justification"`
}

func (terminalTool) Run(ctx context.Context, env *Env, raw json.RawMessage) (Result, error) {
	var a terminalArgs
	if err := decodeArgs(raw, &a); err != nil {
		return failf("%v", err), nil
	}
	if err := a.check(); err != nil {
		return failf("invalid arguments: %v", err), nil
	}
	timeout, err := a.timeout(env)
	if err != nil {
		return failf("invalid arguments: %v", err), nil
	}
	if res, ok, err := consent(ctx, env, a.Command); !ok || err != nil {
		return res, err
	}
	outside := false
	if a.Escalate {
		if res, ok, err := escalate(ctx, env, a); !ok || err != nil {
			return res, err
		}
		outside = true
	}
	if err := beforeMutate(ctx, env); err != nil {
		return Result{}, err
	}
	return runCommand(ctx, env, a.Command, timeout, outside)
}

func (a terminalArgs) check() error {
	switch {
	case a.Command == "":
		return errors.New("command is empty")
	case a.Escalate && strings.TrimSpace(a.Justification) == "":
		return errors.New("escalate needs a justification")
	case !a.Escalate && a.Justification != "":
		return errors.New("justification is only for escalate: true")
	}
	return nil
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

// escalate asks the human to run a command outside the sandbox: a
// mandatory request (once or deny, asked even under yolo), never
// remembered. Where no sandbox is in force there is nothing to leave, so
// nobody is asked.
func escalate(ctx context.Context, env *Env, a terminalArgs) (Result, bool, error) {
	if !sandboxed(env) {
		return Result{}, true, nil
	}
	req := ApprovalRequest{
		Kind: KindEscalation, Mandatory: true, Command: a.Command,
		Description: "run outside the sandbox: " + a.Justification,
	}
	if env.Approver != nil {
		allowed, err := env.Approver.Approve(ctx, req)
		if err != nil {
			return Result{}, false, fmt.Errorf("approve escalation: %w", err)
		}
		if allowed {
			return Result{}, true, nil
		}
	}
	return failf("denied by the user: %q was not run outside the sandbox; it was not run at all.", a.Command), false, nil
}

// sandboxed reports whether commands of env run inside a sandbox.
func sandboxed(env *Env) bool {
	return env.Sandbox != nil && env.Sandbox.Status().Mode != sandbox.ModeOff
}

// runCommand runs command (outside the sandbox when outside is set: an
// approved escalation) in its own process group and kills the group when
// ctx ends or the timeout passes.
func runCommand(ctx context.Context, env *Env, command string, timeout time.Duration, outside bool) (Result, error) {
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd, err := toolCommand(tctx, env, outside, "bash", "-c", command)
	if err != nil {
		return failf("not run: the sandbox could not be built (sandbox.mode %s): %v", env.Sandbox.Status().Mode, err), nil
	}
	out := sandbox.NewCappedBuffer(outputCap(env))
	cmd.Stdout, cmd.Stderr = out, out // one pipe: output stays in order
	if err := cmd.Start(); err != nil {
		return failf("cannot start bash: %v", err), nil
	}
	pid := cmd.Process.Pid // the sandbox helper's: its death ends the sandbox
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

// toolCommand builds argv's command under the session's sandbox policy,
// with the allow-listed environment and the tool marker, leading its own
// process group (killed whole on cancel) and killed with the gateway. A
// nil Sandbox or an approved escalation runs it bare; a sandbox that
// cannot be built is an error, never a bare run.
func toolCommand(ctx context.Context, env *Env, outside bool, argv ...string) (*exec.Cmd, error) {
	environ := append(ToolEnviron(os.Environ(), env.EnvPassthrough), ToolProcessMarker)
	var cmd *exec.Cmd
	if env.Sandbox == nil || outside {
		cmd = exec.CommandContext(ctx, argv[0], argv[1:]...)
		cmd.Dir, cmd.Env = env.Cwd, environ
	} else {
		p := env.SandboxPolicy
		p.Cwd = env.Cwd
		var err error
		if cmd, err = env.Sandbox.Command(ctx, p, environ, argv...); err != nil {
			return nil, err
		}
	}
	sandbox.LeadGroup(cmd, pipeGrace)
	return cmd, nil
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
