package authority

import (
	"context"
	"errors"

	"github.com/hermes-gateway/hermes/internal/agent"
	"github.com/hermes-gateway/hermes/internal/session"
	"github.com/hermes-gateway/hermes/internal/tools"
	"github.com/hermes-gateway/hermes/internal/worker"
)

// runIsolated runs a safe_mode turn in `hermes worker`: a fresh process
// with a fresh environment and no daemon credentials, whose callbacks
// (messages, events, approvals, clarify) come back through the same
// recorder and prompts as an in-process turn.
func (a *Authority) runIsolated(ctx context.Context, t agent.Turn, pol session.Policy, key string) agent.Result {
	if len(a.cfg.WorkerCommand) == 0 {
		return agent.Result{Outcome: agent.OutcomeFailed, Err: errors.New("safe_mode needs the hermes worker command, which this daemon lacks")}
	}
	spec := worker.Spec{
		BaseURL: pol.BaseURL, APIKey: key, Model: t.ModelName, Stream: t.Stream, ReasoningEffort: t.ReasoningEffort, MaxTurns: t.MaxTurns,
		System: t.System, History: t.History, Input: t.Input, Toolsets: pol.Toolsets,
		Cwd: pol.Cwd, SessionID: t.Env.SessionID, SkillsDir: a.cfg.SkillsDir,
		Sandbox: a.workerSandbox(t.Env),
	}
	host := workerHost{Recorder: t.Recorder, env: t.Env}
	return worker.Run(ctx, a.cfg.WorkerCommand, spec, host)
}

// workerSandbox hands the session's sandbox to the worker, whose tools
// run in its own process: safe mode never skips the sandbox. The worker's
// binary serves the helper. terminal.env_passthrough is not sent: the
// worker's environment is fresh, and safe mode ignores user config.
func (a *Authority) workerSandbox(env *tools.Env) *worker.SandboxSpec {
	if env.Sandbox == nil {
		return nil
	}
	return &worker.SandboxSpec{
		Exe: a.cfg.WorkerCommand[0], Mode: env.Sandbox.Status().Mode, Policy: env.SandboxPolicy,
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
