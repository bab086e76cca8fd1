package authority

import (
	"cmp"
	"context"
	"log/slog"
	"time"

	"github.com/hermes-gateway/hermes/internal/auth"
	"github.com/hermes-gateway/hermes/internal/faults"
	"github.com/hermes-gateway/hermes/internal/protocol"
	"github.com/hermes-gateway/hermes/internal/store"
	"github.com/hermes-gateway/hermes/internal/tools"
)

// maxAnswerLen bounds a clarify answer.
const maxAnswerLen = 16384

// prompt is a pending approval or clarify request of a running generation.
// It is answered at most once: the first valid respond wins.
type prompt struct {
	wire   protocol.Prompt
	answer chan answer // buffered 1; receives exactly one answer
}

type answer struct{ value, by string }

func promptList(ps []*prompt) []protocol.Prompt {
	out := make([]protocol.Prompt, 0, len(ps))
	for _, p := range ps {
		out = append(out, p.wire)
	}
	return out
}

// asker opens the prompts of one running turn to its session's viewers and
// waits for their answers (the approver, the clarifier, the hooks'
// consent). It needs the journal and the live session's prompt registry
// (live.addPrompt, takePrompt), nothing else of the Authority.
type asker struct {
	j   turnJournal
	l   *live
	s   stamp
	obs Observer
	log *slog.Logger
}

// ask journals the request, registers the prompt (visible in snapshots from
// that commit on), and waits for an answer, the timeout or ctx.
func (k asker) ask(ctx context.Context, pr *prompt, typ string, payload any, timeout time.Duration) (got answer, askErr error) {
	err := k.j.commit(context.WithoutCancel(ctx), k.l.id, func(_ *store.Tx, j *journal) error {
		return j.add(typ, payload, k.s)
	}, func() { k.l.addPrompt(pr) })
	if err != nil {
		return answer{}, err
	}
	k.obs.PromptOpened(pr.wire.Kind)
	defer observePrompt(k.obs, pr.wire.Kind, time.Now(), &got, &askErr)
	if typ == protocol.EventApprovalRequest {
		faults.Hit(faults.ApprovalAfterRequest)
	}
	var expired <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		expired = t.C
	}
	select {
	case ans := <-pr.answer:
		return ans, nil
	case <-expired:
		return k.expire(pr)
	case <-ctx.Done():
		k.l.takePrompt(pr.wire.PromptID)
		return answer{}, ctx.Err()
	}
}

// expire settles a prompt by timeout unless a viewer answered first.
func (k asker) expire(pr *prompt) (answer, error) {
	if !k.l.takePrompt(pr.wire.PromptID) {
		return <-pr.answer, nil
	}
	ans := answer{by: "timeout"}
	if family(pr.wire.Kind) == "approval" {
		ans.value = protocol.ChoiceDeny
	}
	k.settled(pr, ans)
	return ans, nil
}

// settled journals the settlement of pr by ans.
func (k asker) settled(pr *prompt, ans answer) {
	var typ string
	var payload any
	if family(pr.wire.Kind) == "approval" {
		typ = protocol.EventApprovalSettled
		payload = protocol.ApprovalSettledPayload{PromptID: pr.wire.PromptID, ExecutionGeneration: k.s.generation, Choice: ans.value, By: ans.by}
	} else {
		typ = protocol.EventClarifySettled
		payload = protocol.ClarifySettledPayload{PromptID: pr.wire.PromptID, ExecutionGeneration: k.s.generation}
	}
	if err := k.j.emitDetached(k.l, typ, payload, k.s); err != nil {
		k.log.Error("journal settled prompt failed", "session_id", k.l.id, "err", err)
	}
}

// family is what answers a prompt of kind: clarify.respond for "clarify",
// approval.respond for every approval kind (approval, file, escalation).
func family(kind string) string {
	if kind == "clarify" {
		return "clarify"
	}
	return "approval"
}

// respond delivers a viewer's answer to the prompt of the running generation.
func (a *Authority) respond(ctx context.Context, p auth.Principal, sid string, gen int64, id, kind, value string, capability string) (protocol.RespondResult, error) {
	l, err := a.access(ctx, p, sid, capability)
	if err != nil {
		return protocol.RespondResult{}, err
	}
	pr, stamped, already, err := l.answerPrompt(gen, id, kind, value)
	if err != nil {
		return protocol.RespondResult{}, err
	}
	if already {
		return protocol.RespondResult{Status: "already_resolved", PromptID: id}, nil
	}
	ans := answer{value: value, by: p.Subject}
	a.turns.asker(l, stamped).settled(pr, ans)
	pr.answer <- ans
	return protocol.RespondResult{Status: "resolved", PromptID: id}, nil
}

// RespondApproval answers approval.respond.
func (a *Authority) RespondApproval(ctx context.Context, p auth.Principal, params protocol.ApprovalRespondParams) (_ protocol.RespondResult, err error) {
	defer a.reply(&err)
	return a.respond(ctx, p, params.SessionID, params.ExecutionGeneration, params.PromptID, "approval", params.Choice, protocol.CapApprove)
}

// RespondClarify answers clarify.respond.
func (a *Authority) RespondClarify(ctx context.Context, p auth.Principal, params protocol.ClarifyRespondParams) (_ protocol.RespondResult, err error) {
	defer a.reply(&err)
	if len(params.Answer) > maxAnswerLen {
		return protocol.RespondResult{}, protocol.Errorf(protocol.ReasonInvalidParams, "answer is longer than %d bytes", maxAnswerLen)
	}
	return a.respond(ctx, p, params.SessionID, params.ExecutionGeneration, params.PromptID, "clarify", params.Answer, protocol.CapRespond)
}

// approver is the gateway's tools.Approver for one turn.
type approver struct {
	asker
	settings func() Settings
	allow    func(pattern string) error // records an "always" approval in config.yaml; nil = none
	yolo     bool
}

func (ap *approver) Approve(ctx context.Context, req tools.ApprovalRequest) (bool, error) {
	settings := ap.settings()
	if !req.Mandatory && ap.remembered(settings, req) {
		return true, nil
	}
	kind, choices := cmp.Or(req.Kind, tools.KindCommand), protocol.ApprovalChoices
	if req.Mandatory {
		choices = []string{protocol.ChoiceOnce, protocol.ChoiceDeny}
	}
	pr := &prompt{answer: make(chan answer, 1), wire: protocol.Prompt{
		PromptID: newID(), Kind: kind, ExecutionGeneration: ap.s.generation,
		Command: req.Command, Description: req.Description, Choices: choices,
	}}
	payload := protocol.ApprovalRequestPayload{
		Kind: kind, PromptID: pr.wire.PromptID, ExecutionGeneration: ap.s.generation,
		Command: req.Command, Description: req.Description, Choices: choices,
	}
	ans, err := ap.ask(ctx, pr, protocol.EventApprovalRequest, payload, settings.ApprovalTimeout)
	if err != nil {
		return false, err
	}
	faults.Hit(faults.ApprovalAfterResponse)
	return ap.apply(ans.value, req), nil
}

// remembered: yolo, approvals off, the allowlist or a "session" approval
// already consent to req.
func (ap *approver) remembered(settings Settings, req tools.ApprovalRequest) bool {
	if ap.yolo || settings.ApprovalsOff || allowlisted(settings.Allowlist, req) {
		return true
	}
	return ap.l.approvedFor(req.Pattern)
}

func (ap *approver) apply(choice string, req tools.ApprovalRequest) bool {
	if req.Mandatory {
		return choice == protocol.ChoiceOnce
	}
	switch choice {
	case protocol.ChoiceOnce:
		return true
	case protocol.ChoiceSession:
		ap.l.approve(req.Pattern)
		return true
	case protocol.ChoiceAlways:
		if ap.allow != nil {
			if err := ap.allow(allowKey(req)); err != nil {
				ap.log.Error("could not record the always-approval in config.yaml", "err", err)
			}
		}
		return true
	}
	return false
}

// allowKey is what an "always" approval records: the classifier pattern,
// else the exact command.
func allowKey(req tools.ApprovalRequest) string {
	if req.Pattern != "" {
		return req.Pattern
	}
	return req.Command
}

func allowlisted(list []string, req tools.ApprovalRequest) bool {
	for _, item := range list {
		if item != "" && (item == req.Pattern || item == req.Command) {
			return true
		}
	}
	return false
}

// clarifier is the gateway's tools.Clarifier for one turn.
type clarifier struct {
	asker
	settings func() Settings
}

func (c *clarifier) Ask(ctx context.Context, q tools.Question) (string, error) {
	choices := q.Choices
	if choices == nil {
		choices = []string{}
	}
	pr := &prompt{answer: make(chan answer, 1), wire: protocol.Prompt{
		PromptID: newID(), Kind: "clarify", ExecutionGeneration: c.s.generation,
		Question: q.Question, Choices: choices, MultiSelect: q.MultiSelect,
	}}
	payload := protocol.ClarifyRequestPayload{
		Kind: "clarify", PromptID: pr.wire.PromptID, ExecutionGeneration: c.s.generation,
		Question: q.Question, Choices: choices, MultiSelect: q.MultiSelect,
	}
	ans, err := c.ask(ctx, pr, protocol.EventClarifyRequest, payload, c.settings().ClarifyTimeout)
	return ans.value, err
}

// uiSink journals ui.* events for GUI viewers.
type uiSink struct {
	j   turnJournal
	l   *live
	s   stamp
	log *slog.Logger
}

func (u *uiSink) UIEvent(kind string, payload any) {
	if err := u.j.emitDetached(u.l, kind, payload, u.s); err != nil {
		u.log.Error("journal ui event failed", "session_id", u.l.id, "err", err)
	}
}
