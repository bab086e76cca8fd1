package authority

import (
	"context"
	"errors"

	"github.com/hermes-gateway/hermes/internal/agent"
	"github.com/hermes-gateway/hermes/internal/session"
	"github.com/hermes-gateway/hermes/internal/tools"
	"github.com/hermes-gateway/hermes/internal/worker"
)

// isolated is how a safe_mode turn runs: in `hermes worker`, a fresh
// process with a fresh environment and no daemon credentials, whose
// callbacks (messages, events, approvals, clarify) come back through the
// same recorder and prompts as an in-process turn. spec holds what the
// policy and the tool Env say; run adds the turn's own fields.
type isolated struct {
	command []string // the hermes worker argv; nil: the daemon lacks it
	spec    worker.Spec
}

// isolate is the isolated run of a turn of pol with model key key and tool
// Env env.
func (b turnBuilder) isolate(pol session.Policy, key string, env *tools.Env) *isolated {
	if len(b.worker) == 0 {
		return &isolated{}
	}
	return &isolated{command: b.worker, spec: worker.Spec{
		BaseURL: pol.BaseURL, APIKey: key, Toolsets: pol.Toolsets,
		Cwd: pol.Cwd, SessionID: env.SessionID, SkillsDir: b.skillsDir,
		Sandbox: workerSandbox(b.worker[0], env),
	}}
}

// run runs turn t (as the hooks left it) in the worker.
func (iso *isolated) run(ctx context.Context, t agent.Turn) agent.Result {
	if len(iso.command) == 0 {
		return agent.Result{Outcome: agent.OutcomeFailed, Err: errors.New("safe_mode needs the hermes worker command, which this daemon lacks")}
	}
	spec := iso.spec
	spec.Model, spec.Stream, spec.ReasoningEffort, spec.MaxTurns = t.ModelName, t.Stream, t.ReasoningEffort, t.MaxTurns
	spec.System, spec.History, spec.Input = t.System, t.History, t.Input
	host := workerHost{Recorder: t.Recorder, env: t.Env}
	return worker.Run(ctx, iso.command, spec, host)
}

// workerSandbox hands the session's sandbox to the worker, whose tools
// run in its own process: safe mode never skips the sandbox. The worker's
// binary exe serves the helper. terminal.env_passthrough is not sent: the
// worker's environment is fresh, and safe mode ignores user config.
func workerSandbox(exe string, env *tools.Env) *worker.SandboxSpec {
	if env.Sandbox == nil {
		return nil
	}
	return &worker.SandboxSpec{
		Exe: exe, Mode: env.Sandbox.Status().Mode, Policy: env.SandboxPolicy,
		ProfileHome: env.ProfileHome, WritableRoots: env.WritableRoots, ProtectedPaths: env.ProtectedPaths,
	}
}

// workerHost is the daemon side of an isolated turn.
type workerHost struct {
	agent.Recorder
	env *tools.Env
}

func (h workerHost) Approve(ctx context.Context, q tools.ApprovalRequest) (bool, error) {
	return h.env.Approver.Approve(ctx, q)
}

func (h workerHost) Ask(ctx context.Context, q tools.Question) (string, error) {
	return h.env.Clarifier.Ask(ctx, q)
}

func (h workerHost) UIEvent(kind string, payload any) { h.env.UI.UIEvent(kind, payload) }

func (h workerHost) Started(pid int) {
	if h.env.Processes != nil {
		h.env.Processes.Started(pid)
	}
}

func (h workerHost) Exited(pid int) {
	if h.env.Processes != nil {
		h.env.Processes.Exited(pid)
	}
}
