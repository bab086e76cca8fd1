package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/hermes-gateway/hermes/internal/sandbox"
)

// Outcomes of one hook run (hook.run outcome).
const (
	OutcomeOK      = "ok"      // exit 0 without a blocking decision
	OutcomeBlocked = "blocked" // exit 2, or a blocking JSON decision
	OutcomeFailed  = "failed"  // any other exit, or it could not start
	OutcomeTimeout = "timeout" // killed with its process group at its timeout
)

const (
	defaultOutputCap = 64 << 10
	// pipeGrace bounds how long a finished hook's pipes may be held open
	// by a background child it left behind.
	pipeGrace = 2 * time.Second
)

// ProcessTracker is told about every hook process (tools.ProcessTracker:
// the control socket refuses tickets to their descendants, and the next
// daemon kills the groups a crash left behind).
type ProcessTracker interface {
	Started(pid int)
	Exited(pid int)
}

// Runner starts hook commands for one session. It holds no state between
// runs and is safe for concurrent use.
type Runner struct {
	// Launcher runs every hook inside the tool sandbox; nil runs it bare
	// (only tests that say so).
	Launcher *sandbox.Launcher
	// Policy is the session's tool sandbox policy; Policy.Cwd is the
	// session cwd, where the hook runs.
	Policy sandbox.Policy
	// Env is the hook's environment, already allow-listed (the tool
	// environment); CLAUDE_PROJECT_DIR is added.
	Env []string
	// OutputCap bounds what is kept of stdout and of stderr, each; 0 = 64 KiB.
	OutputCap int
	Processes ProcessTracker // nil = not tracked
}

// Result is one hook run.
type Result struct {
	Event    string
	Command  string
	ExitCode int // -1: killed, or never started
	Duration time.Duration
	Outcome  string // OutcomeOK, OutcomeBlocked, OutcomeFailed or OutcomeTimeout
	// Blocks: the action must not happen (Outcome blocked, or failed or
	// timeout of a fail_closed hook).
	Blocks bool
	// Ask: PreToolUse permissionDecision "ask": a human must consent.
	Ask bool
	// Reason is why it blocks or asks (exit 2: its stderr), or why it
	// failed; for the model and the journal.
	Reason string
	// Context is additionalContext, or the plain stdout of a
	// UserPromptSubmit/SessionStart hook that exited 0.
	Context string
	// Interrupted: ctx ended while the hook ran (it was killed).
	Interrupted bool
}

// Verdict is what the hooks of one event decided together.
type Verdict struct {
	Block     bool
	Reason    string // of the first blocking hook
	Ask       bool
	AskReason string
	Context   []string // additional context, in hook order
	Results   []Result
}

// Fire runs cmds in order with in on stdin and reports each result to each
// (nil = none) as it ends. It stops at the first hook that blocks: later
// hooks of the event do not run. err is ctx's error when ctx ended.
func (r *Runner) Fire(ctx context.Context, cmds []Command, in Input, each func(Result)) (Verdict, error) {
	var v Verdict
	for _, c := range cmds {
		res := r.Run(ctx, c, in)
		v.Results = append(v.Results, res)
		if each != nil {
			each(res)
		}
		if res.Interrupted {
			return v, fmt.Errorf("hook %s: %w", in.Event, context.Cause(ctx))
		}
		if res.Context != "" {
			v.Context = append(v.Context, res.Context)
		}
		if res.Ask && !v.Ask {
			v.Ask, v.AskReason = true, res.Reason
		}
		if res.Blocks {
			v.Block, v.Reason = true, res.Reason
			return v, nil
		}
	}
	return v, nil
}

// Run runs one hook command to its end, its timeout or ctx.
func (r *Runner) Run(ctx context.Context, c Command, in Input) Result {
	start := time.Now()
	res := Result{Event: in.Event, Command: c.Command, ExitCode: -1}
	stdin, err := json.Marshal(in)
	if err != nil {
		return r.failed(res, start, c, fmt.Sprintf("encode hook input: %v", err))
	}
	timeout := c.TimeoutDuration()
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd, err := r.command(tctx, c.Command)
	if err != nil {
		return r.failed(res, start, c, fmt.Sprintf("not run: the sandbox could not be built: %v", err))
	}
	stdout, stderr := sandbox.NewCappedBuffer(r.cap()), sandbox.NewCappedBuffer(r.cap())
	cmd.Stdin, cmd.Stdout, cmd.Stderr = bytes.NewReader(stdin), stdout, stderr
	if err := cmd.Start(); err != nil {
		return r.failed(res, start, c, fmt.Sprintf("cannot start bash: %v", err))
	}
	pid := cmd.Process.Pid
	if r.Processes != nil {
		r.Processes.Started(pid)
	}
	waitErr := cmd.Wait()
	if r.Processes != nil {
		r.Processes.Exited(pid)
	}
	res.Duration = time.Since(start)
	switch {
	case ctx.Err() != nil:
		res.Outcome, res.Interrupted, res.Reason = OutcomeFailed, true, "interrupted"
		return res
	case tctx.Err() != nil:
		res.Outcome, res.Blocks = OutcomeTimeout, c.FailClosed
		res.Reason = fmt.Sprintf("hook timed out after %s and was killed", timeout)
		return res
	}
	res.ExitCode = exitCode(cmd, waitErr)
	interpret(&res, c, stdout.String(), stderr.String())
	return res
}

func (r *Runner) failed(res Result, start time.Time, c Command, why string) Result {
	res.Duration, res.Outcome, res.Reason, res.Blocks = time.Since(start), OutcomeFailed, why, c.FailClosed
	return res
}

// interpret applies Claude Code's protocol to a hook that exited.
func interpret(res *Result, c Command, stdout, stderr string) {
	switch res.ExitCode {
	case 0:
		res.Outcome = OutcomeOK
		out, ok := parseOutput(stdout)
		if !ok {
			if res.Event == UserPromptSubmit || res.Event == SessionStart {
				res.Context = strings.TrimSpace(stdout)
			}
			return
		}
		applyOutput(res, out)
	case 2:
		res.Outcome, res.Blocks = OutcomeBlocked, true
		res.Reason = strings.TrimSpace(stderr)
		if res.Reason == "" {
			res.Reason = "blocked by a hook (exit 2)"
		}
	default:
		res.Outcome, res.Blocks = OutcomeFailed, c.FailClosed
		res.Reason = "hook exited with code " + strconv.Itoa(res.ExitCode)
		if s := strings.TrimSpace(stderr); s != "" {
			res.Reason += ": " + s
		}
	}
}

// applyOutput reads the JSON decision of an exit-0 hook. permissionDecision
// "allow" is no opinion: a hook can never approve what the gate would ask.
func applyOutput(res *Result, out Output) {
	res.Context = out.Specific.AdditionalContext
	switch {
	case out.Continue != nil && !*out.Continue:
		res.Blocks, res.Reason = true, firstNonEmpty(out.StopReason, out.Reason, "stopped by a hook")
	case out.Decision == "block":
		res.Blocks, res.Reason = true, firstNonEmpty(out.Reason, "blocked by a hook")
	case out.Specific.PermissionDecision == "deny":
		res.Blocks, res.Reason = true, firstNonEmpty(out.Specific.PermissionDecisionReason, out.Reason, "denied by a hook")
	case out.Specific.PermissionDecision == "ask":
		res.Ask, res.Reason = true, firstNonEmpty(out.Specific.PermissionDecisionReason, out.Reason)
	}
	if res.Blocks {
		res.Outcome = OutcomeBlocked
	}
}

// command builds `bash -c line` under the session's sandbox policy, leading
// its own process group (killed whole at the timeout or on cancel) and
// killed with the gateway. A sandbox that cannot be built is an error,
// never a bare run.
func (r *Runner) command(ctx context.Context, line string) (*exec.Cmd, error) {
	env := append(append([]string{}, r.Env...), "CLAUDE_PROJECT_DIR="+r.Policy.Cwd)
	var cmd *exec.Cmd
	if r.Launcher == nil {
		cmd = exec.CommandContext(ctx, "bash", "-c", line)
		cmd.Dir, cmd.Env = r.Policy.Cwd, env
	} else {
		var err error
		if cmd, err = r.Launcher.Command(ctx, r.Policy, env, "bash", "-c", line); err != nil {
			return nil, err
		}
	}
	sandbox.LeadGroup(cmd, pipeGrace)
	return cmd, nil
}

func (r *Runner) cap() int {
	if r.OutputCap > 0 {
		return r.OutputCap
	}
	return defaultOutputCap
}

func exitCode(cmd *exec.Cmd, waitErr error) int {
	var ee *exec.ExitError
	switch {
	case errors.As(waitErr, &ee):
		return ee.ExitCode()
	case cmd.ProcessState != nil:
		return cmd.ProcessState.ExitCode()
	}
	return -1
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if strings.TrimSpace(s) != "" {
			return strings.TrimSpace(s)
		}
	}
	return ""
}
