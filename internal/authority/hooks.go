package authority

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"sync"

	"github.com/hermes-gateway/hermes/internal/hooks"
	"github.com/hermes-gateway/hermes/internal/protocol"
	"github.com/hermes-gateway/hermes/internal/session"
	"github.com/hermes-gateway/hermes/internal/tools"
)

// maxHookReason cuts a hook's reason in hook.run (runes).
const maxHookReason = 2 << 10

// Project consent states of one live session.
const (
	consentUnknown = iota // not yet looked up or asked in this process
	consentGranted        // the store holds this digest for the cwd, or a viewer just accepted it
	consentDenied         // a viewer refused (or the prompt timed out): not asked again in this process
)

// sessionHooks is the hook state of one live session that runs hooks. It
// is made once (hooksOf) from the frozen receipt and lives with the live
// session.
type sessionHooks struct {
	set           hooks.Set // frozen at creation; never changes
	projectDigest string    // of set.Project; "" = no project hooks

	mu      sync.Mutex
	consent int    // consent*; guarded by mu
	started bool   // SessionStart ran in this process; guarded by mu
	context string // SessionStart's additionalContext, added to every turn's system prompt; guarded by mu
}

// freezeHooks puts the hook set of an accept_hooks session into its
// receipt before it is committed: config.yaml's hooks (not under
// ignore_user_config) and the cwd's .hermes/hooks.yaml, as they are now.
// safe_mode sessions run no hooks (their tools run in the worker). A
// malformed project file fails the create, naming the key.
func (a *Authority) freezeHooks(r *session.Receipt, set Settings) error {
	pol := &r.Policy
	if !pol.AcceptHooks || pol.SafeMode {
		return nil
	}
	var s hooks.Set
	if !pol.IgnoreUserConfig {
		s.Config = set.Hooks
	}
	project, err := hooks.LoadProject(pol.Cwd)
	if err != nil {
		return protocol.Errorf(protocol.ReasonInvalidParams, "accept_hooks: %v", err)
	}
	s.Project = project
	raw, err := json.Marshal(s)
	if err != nil {
		return err
	}
	pol.Hooks = &session.HooksPolicy{Digest: s.Digest(), Set: raw, ProjectDigest: project.Digest()}
	return nil
}

// errHooksDamaged: the receipt's hook set does not match its digest.
var errHooksDamaged = errors.New("the session's frozen hook set does not match its digest")

// hooksOf returns l's hook state, nil when the session runs no hooks. A
// hook set that does not match its digest fails closed (the turn fails).
func (a *Authority) hooksOf(l *live, pol session.Policy) (*sessionHooks, error) {
	if pol.Hooks == nil {
		return nil, nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.hooks != nil {
		return l.hooks, nil
	}
	var s hooks.Set
	if err := json.Unmarshal(pol.Hooks.Set, &s); err != nil || s.Digest() != pol.Hooks.Digest ||
		s.Project.Digest() != pol.Hooks.ProjectDigest {
		return nil, errHooksDamaged
	}
	l.hooks = &sessionHooks{set: s, projectDigest: pol.Hooks.ProjectDigest}
	return l.hooks, nil
}

// projectAllowed reports whether the project hooks may run now, without
// asking: consent given in this process, or remembered for the cwd.
func (a *Authority) projectAllowed(ctx context.Context, sh *sessionHooks, cwd string) bool {
	if sh.projectDigest == "" {
		return false
	}
	sh.mu.Lock()
	c := sh.consent
	sh.mu.Unlock()
	switch c {
	case consentGranted:
		return true
	case consentDenied:
		return false
	}
	d, ok, err := a.cfg.Store.HookConsentDigest(ctx, cwd)
	if err != nil || !ok || d != sh.projectDigest {
		return false
	}
	sh.mu.Lock()
	sh.consent = consentGranted
	sh.mu.Unlock()
	return true
}

// hookRunner is the Runner of a session's hooks: the tool sandbox of env
// (its launcher and policy, in the session cwd) and the tool environment.
func (a *Authority) hookRunner(env *tools.Env) *hooks.Runner {
	p := env.SandboxPolicy
	p.Cwd = env.Cwd
	environ := append(tools.ToolEnviron(os.Environ(), env.EnvPassthrough), tools.ToolProcessMarker)
	r := &hooks.Runner{Launcher: env.Sandbox, Policy: p, Env: environ, OutputCap: env.OutputCap}
	if a.cfg.Processes != nil {
		r.Processes = a.cfg.Processes
	}
	return r
}

// fire runs the hooks of event (config.yaml's, then the project's when
// allowed) and journals each as hook.run.
func (a *Authority) fire(ctx context.Context, l *live, s stamp, run *hooks.Runner, sh *sessionHooks, project bool, in hooks.Input) (hooks.Verdict, error) {
	cmds := sh.set.Config.Matching(in.Event, in.ToolName)
	n := len(cmds)
	if project {
		cmds = append(cmds, sh.set.Project.Matching(in.Event, in.ToolName)...)
	}
	if len(cmds) == 0 {
		return hooks.Verdict{}, nil
	}
	i := 0
	return run.Fire(ctx, cmds, in, func(res hooks.Result) {
		src := hooks.SourceConfig
		if i >= n {
			src = hooks.SourceProject
		}
		a.journalHook(l, s, src, cmds[i], in.ToolName, res)
		i++
	})
}

// journalHook journals one hook.run. A hook killed by an interruption is
// journaled too (outcome failed): it is never run again.
func (a *Authority) journalHook(l *live, s stamp, source string, c hooks.Command, tool string, res hooks.Result) {
	p := protocol.HookRunPayload{
		Event: res.Event, Command: res.Command, Source: source, ExitCode: res.ExitCode,
		DurationMS: res.Duration.Milliseconds(), Outcome: res.Outcome, Blocks: res.Blocks,
		FailClosed: c.FailClosed, Tool: tool, Reason: cut(res.Reason, maxHookReason),
	}
	if err := a.emitDetached(l, protocol.EventHookRun, p, s); err != nil {
		a.log.Error("journal hook.run failed", "session_id", l.id, "err", err)
	}
	if res.Outcome == hooks.OutcomeFailed || res.Outcome == hooks.OutcomeTimeout {
		a.log.Warn("hook did not succeed", "session_id", l.id, "event", res.Event, "outcome", res.Outcome,
			"exit_code", res.ExitCode, "fail_closed", c.FailClosed)
	}
}
