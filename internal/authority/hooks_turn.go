package authority

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/hermes-gateway/hermes/internal/agent"
	"github.com/hermes-gateway/hermes/internal/hooks"
	"github.com/hermes-gateway/hermes/internal/protocol"
	"github.com/hermes-gateway/hermes/internal/session"
	"github.com/hermes-gateway/hermes/internal/store"
	"github.com/hermes-gateway/hermes/internal/tools"
)

// turnHooks is the hook side of one turn of an accept_hooks session: it
// asks the project consent, runs SessionStart (once per process) and
// UserPromptSubmit before the model is called, PreToolUse/PostToolUse
// around each tool call (agent.ToolHooks) and Stop after the turn. A nil
// *turnHooks runs nothing.
type turnHooks struct {
	a       *Authority
	l       *live
	s       stamp
	sh      *sessionHooks
	run     *hooks.Runner
	project bool // the project hooks may run in this turn (consented)
	cwd     string
}

// turnHooks prepares the hooks of one turn and runs the ones that precede
// the model. stop is the turn's result when it must end here: rejected by
// a UserPromptSubmit hook, interrupted while a hook or the consent prompt
// waited, failed on a damaged hook set.
func (a *Authority) turnHooks(ctx context.Context, l *live, r session.Receipt, adm store.Admission, turn *agent.Turn) (*turnHooks, *turnResult) {
	sh, err := a.hooksOf(l, r.Policy)
	if err != nil {
		return nil, &turnResult{Outcome: protocol.OutcomeFailed, Error: err.Error()}
	}
	if sh == nil || sh.set.Empty() {
		return nil, nil
	}
	th := &turnHooks{a: a, l: l, s: stamp{generation: adm.Generation, admissionID: adm.AdmissionID},
		sh: sh, run: a.hookRunner(turn.Env), cwd: r.Policy.Cwd}
	if err := th.consent(ctx); err != nil {
		return nil, interruptedBy(err)
	}
	if err := th.sessionStart(ctx, turn); err != nil {
		return nil, interruptedBy(err)
	}
	if stop := th.userPromptSubmit(ctx, turn); stop != nil {
		return nil, stop
	}
	turn.Hooks = th
	return th, nil
}

func interruptedBy(err error) *turnResult {
	return &turnResult{Outcome: protocol.OutcomeInterrupted, Error: "turn interrupted: " + err.Error()}
}

func (th *turnHooks) fire(ctx context.Context, in hooks.Input) (hooks.Verdict, error) {
	in.SessionID, in.Cwd = th.l.id, th.cwd
	return th.a.fire(ctx, th.l, th.s, th.run, th.sh, th.project, in)
}

// consent asks a viewer, once per cwd and digest, before the project's
// .hermes/hooks.yaml runs: an approval.request of kind "hooks" listing
// its commands, once or deny, asked even under yolo. An acceptance is
// remembered in the store; a refusal only for this session in this process.
func (th *turnHooks) consent(ctx context.Context) error {
	a, sh := th.a, th.sh
	if sh.projectDigest == "" {
		return nil
	}
	if a.projectAllowed(ctx, sh, th.cwd) {
		th.project = true
		return nil
	}
	sh.mu.Lock()
	denied := sh.consent == consentDenied
	sh.mu.Unlock()
	if denied {
		return nil
	}
	cmds := sh.set.Project.Commands()
	choices := []string{protocol.ChoiceOnce, protocol.ChoiceDeny}
	desc := "run the hooks of " + hooks.ProjectFile + " in " + th.cwd + " (first use, or the file changed): they run inside the sandbox at each event they name"
	pr := &prompt{answer: make(chan answer, 1), wire: protocol.Prompt{
		PromptID: newID(), Kind: tools.KindHooks, ExecutionGeneration: th.s.generation,
		Command: strings.Join(cmds, "\n"), Description: desc, Choices: choices,
	}}
	payload := protocol.ApprovalRequestPayload{
		Kind: tools.KindHooks, PromptID: pr.wire.PromptID, ExecutionGeneration: th.s.generation,
		Command: pr.wire.Command, Description: desc, Choices: choices,
	}
	ans, err := a.turns.asker(th.l, th.s).ask(ctx, pr, protocol.EventApprovalRequest, payload, a.cfg.Settings().ApprovalTimeout)
	if err != nil {
		return err
	}
	if ans.value != protocol.ChoiceOnce {
		sh.mu.Lock()
		sh.consent = consentDenied
		sh.mu.Unlock()
		return nil
	}
	return th.remember(ctx, cmds, ans.by)
}

// remember records an accepted project hook set for the cwd; it runs from
// now on. A failed write is logged: the consent holds for this process.
func (th *turnHooks) remember(ctx context.Context, cmds []string, by string) error {
	listed, _ := json.Marshal(cmds)
	err := th.a.cfg.Store.InTx(context.WithoutCancel(ctx), th.a.cfg.Epoch, func(tx *store.Tx) error {
		return tx.PutHookConsent(store.HookConsent{Cwd: th.cwd, Digest: th.sh.projectDigest,
			CommandsJSON: string(listed), AcceptedBy: by, AcceptedAtMs: time.Now().UnixMilli()})
	})
	if err != nil {
		th.a.log.Error("could not remember the project hook consent", "session_id", th.l.id, "err", err)
	}
	th.sh.mu.Lock()
	th.sh.consent = consentGranted
	th.sh.mu.Unlock()
	th.project = true
	return nil
}

// sessionStart runs SessionStart once per session and process (source
// startup for a session without history, else resume); its
// additionalContext joins the system prompt of every later turn.
func (th *turnHooks) sessionStart(ctx context.Context, turn *agent.Turn) error {
	th.sh.mu.Lock()
	started, extra := th.sh.started, th.sh.context
	th.sh.started = true
	th.sh.mu.Unlock()
	if !started {
		source := "startup"
		if len(turn.History) > 0 {
			source = "resume"
		}
		v, err := th.fire(ctx, hooks.Input{Event: hooks.SessionStart, Source: source})
		if err != nil {
			return err
		}
		extra = strings.Join(v.Context, "\n\n")
		th.sh.mu.Lock()
		th.sh.context = extra
		th.sh.mu.Unlock()
	}
	if extra != "" {
		turn.System = strings.TrimSpace(turn.System + "\n\n" + extra)
	}
	return nil
}

// userPromptSubmit runs UserPromptSubmit on the turn's input. A blocking
// hook rejects the turn before the prompt is recorded or sent; context is
// appended to the user message the model gets (and the transcript keeps).
func (th *turnHooks) userPromptSubmit(ctx context.Context, turn *agent.Turn) *turnResult {
	if turn.Input == "" {
		return nil
	}
	v, err := th.fire(ctx, hooks.Input{Event: hooks.UserPromptSubmit, Prompt: turn.Input})
	switch {
	case err != nil:
		return interruptedBy(err)
	case v.Block:
		return &turnResult{Outcome: protocol.OutcomeRejected, Error: "blocked by a UserPromptSubmit hook: " + v.Reason}
	}
	if len(v.Context) > 0 {
		turn.Input += "\n\n" + strings.Join(v.Context, "\n\n")
	}
	return nil
}

// stop runs the Stop hooks after a completed turn. The turn has ended: a
// blocking decision is journaled, not acted on (docs/protocol.md#hooks).
func (th *turnHooks) stop(ctx context.Context, res turnResult) {
	if th == nil || res.Outcome != protocol.OutcomeCompleted || ctx.Err() != nil {
		return
	}
	active := false
	_, _ = th.fire(ctx, hooks.Input{Event: hooks.Stop, StopHookActive: &active})
}

// PreToolUse implements agent.ToolHooks.
func (th *turnHooks) PreToolUse(ctx context.Context, tool string, args json.RawMessage) (agent.PreToolDecision, error) {
	v, err := th.fire(ctx, hooks.Input{Event: hooks.PreToolUse, ToolName: tool, ToolInput: args})
	if err != nil {
		return agent.PreToolDecision{}, err
	}
	d := agent.PreToolDecision{Block: v.Block, Reason: v.Reason, Ask: v.Ask && !v.Block}
	if d.Ask {
		d.AskDescription = "a PreToolUse hook asks for your consent"
		if v.AskReason != "" {
			d.AskDescription += ": " + v.AskReason
		}
	}
	return d, nil
}

// PostToolUse implements agent.ToolHooks: tool_response is {output,
// is_error}; a blocking hook's reason and any additionalContext go back
// to the model with the result.
func (th *turnHooks) PostToolUse(ctx context.Context, tool string, args json.RawMessage, res tools.Result) (string, error) {
	resp, _ := json.Marshal(map[string]any{"output": res.Output, "is_error": res.IsError})
	v, err := th.fire(ctx, hooks.Input{Event: hooks.PostToolUse, ToolName: tool, ToolInput: args, ToolResponse: resp})
	if err != nil {
		return "", err
	}
	fb := v.Context
	if v.Block {
		fb = append(fb, v.Reason)
	}
	return strings.Join(fb, "\n"), nil
}
