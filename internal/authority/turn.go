package authority

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/hermes-gateway/hermes/internal/agent"
	"github.com/hermes-gateway/hermes/internal/model"
	"github.com/hermes-gateway/hermes/internal/protocol"
	"github.com/hermes-gateway/hermes/internal/session"
	"github.com/hermes-gateway/hermes/internal/store"
	"github.com/hermes-gateway/hermes/internal/tools"
)

// maxHistory bounds the transcript a turn sends (compression keeps it small).
const maxHistory = 100000

// maxEventResult cuts a tool result carried in an event (docs/protocol.md#replay).
const maxEventResult = 64 << 10

// execute runs one claimed admission with the session's frozen policy. It
// never returns an error: every failure is an outcome the row settles with.
func (a *Authority) execute(ctx context.Context, l *live, adm store.Admission) (res turnResult) {
	defer func() {
		if v := recover(); v != nil {
			a.log.Error("turn panicked; contained to its session", "session_id", l.id, "panic", v)
			res = panicResult(v)
		}
	}()
	a.autoCompress(ctx, l)
	r := l.current()
	turn, key, err := a.buildTurn(ctx, l, r, adm)
	if err != nil {
		return turnResult{Outcome: protocol.OutcomeFailed, Error: err.Error()}
	}
	l.markBuilt()
	defer a.endCheckpointTurn(l)
	a.instrument(&turn)
	hk, stop := a.turnHooks(ctx, l, r, adm, &turn)
	if stop != nil {
		return *stop
	}
	defer func() { hk.stop(ctx, res) }()
	if r.Policy.SafeMode {
		a.checkpointEagerly(ctx, turn.Env.BeforeMutate)
		return settled(a.runIsolated(ctx, turn, r.Policy, key))
	}
	return settled(agent.Run(ctx, turn))
}

// buildTurn assembles one turn from the frozen policy, the transcript and
// the admission's text; it also returns the model key it chose.
func (a *Authority) buildTurn(ctx context.Context, l *live, r session.Receipt, adm store.Admission) (agent.Turn, string, error) {
	s := stamp{generation: adm.Generation, admissionID: adm.AdmissionID}
	ts, err := tools.Build(r.Policy.Toolsets)
	if err != nil {
		return agent.Turn{}, "", fmt.Errorf("tools: %w", err)
	}
	if a.cfg.MCPTools != nil && len(r.Policy.MCP) > 0 {
		ts = append(ts, a.cfg.MCPTools(ctx, l.id, r.Policy)...)
	}
	history, err := a.history(ctx, r.Entry.SessionID)
	if err != nil {
		return agent.Turn{}, "", errors.New("history unavailable")
	}
	key := a.modelKey(l, r.Policy, a.cfg.Settings())
	return agent.Turn{
		Model:           model.New(model.Config{BaseURL: r.Policy.BaseURL, APIKey: key}),
		ModelName:       r.Policy.Model,
		Stream:          r.Policy.Streaming,
		ReasoningEffort: r.Policy.Reasoning,
		MaxTurns:        r.Policy.MaxTurns,
		History:         history,
		System:          systemPrompt(l.id, r.Policy),
		Input:           parsePayload(adm.PayloadJSON).Text,
		Tools:           ts,
		Env:             a.toolEnv(l, r.Policy, s),
		Recorder:        &recorder{a: a, l: l, s: s, phys: r.Entry.SessionID},
	}, key, nil
}

// settled maps an agent result to what the admission settles with.
func settled(out agent.Result) turnResult {
	res := turnResult{Text: out.Text, Outcome: out.Outcome, Usage: usageJSON(out.Usage), tokens: out.Usage}
	if out.Err != nil && out.Outcome != protocol.OutcomeCompleted {
		res.Error = out.Err.Error()
	}
	return res
}

// modelKey is the launch key, else (never for safe_mode/ignore_user_config
// sessions, which have no daemon credentials) the profile key bound to the
// session's base_url, if it is a configured endpoint (session.ProfileKeyName).
func (a *Authority) modelKey(l *live, pol session.Policy, s Settings) string {
	key := l.key()
	if key != "" || pol.CredentialRef != nil || pol.SafeMode || pol.IgnoreUserConfig || s.ProfileKey == nil {
		return key
	}
	if name, ok := session.ProfileKeyName(pol, s.Defaults); ok {
		return s.ProfileKey(name)
	}
	return ""
}

func systemPrompt(sid string, pol session.Policy) string {
	in := agent.PromptInput{Cwd: pol.Cwd, SessionID: sid, Platform: pol.Platform, PassSessionID: pol.PassSessionID}
	if pol.SkillsPrompt != nil {
		in.Skills = *pol.SkillsPrompt
	}
	if !pol.IgnoreRules && !pol.SafeMode {
		in.Rules = agent.LoadRules(pol.Cwd)
	}
	return agent.SystemPrompt(in)
}

// toolEnv is the Env of one turn's tools. Yolo reaches only the approver:
// the sandbox applies to every session.
func (a *Authority) toolEnv(l *live, pol session.Policy, s stamp) *tools.Env {
	env := &tools.Env{
		SessionID:    l.id,
		Cwd:          pol.Cwd,
		Approver:     &approver{a: a, l: l, s: s, yolo: pol.Yolo},
		Clarifier:    &clarifier{a: a, l: l, s: s},
		UI:           &uiSink{a: a, l: l, s: s},
		Processes:    a.cfg.Processes,
		Todos:        l.todos,
		SkillsDir:    a.cfg.SkillsDir,
		BeforeMutate: a.checkpointHook(l, pol, s),
	}
	a.sandboxEnv(env, l.id, pol, a.cfg.Settings())
	return env
}

func (a *Authority) history(ctx context.Context, phys string) ([]model.Message, error) {
	rows, _, err := a.cfg.Store.Messages(ctx, phys, maxHistory)
	if err != nil {
		return nil, err
	}
	return modelMessages(rows), nil
}

// modelMessages is a stored transcript as the model reads it.
func modelMessages(rows []store.Message) []model.Message {
	out := make([]model.Message, 0, len(rows))
	for _, m := range rows {
		mm := model.Message{Role: m.Role, Content: m.Content, ToolCallID: m.ToolCallID}
		if m.Role == "tool" {
			mm.Name = m.ToolName
		}
		if m.ToolCallsJSON != "" {
			_ = json.Unmarshal([]byte(m.ToolCallsJSON), &mm.ToolCalls)
		}
		out = append(out, mm)
	}
	return out
}

// recorder persists a turn's messages to the physical transcript as they
// complete and journals its tool events; deltas go live only.
type recorder struct {
	a    *Authority
	l    *live
	s    stamp
	phys string
}

func (r *recorder) Message(ctx context.Context, m model.Message) error {
	row := store.Message{SessionID: r.phys, Role: m.Role, Content: m.Content, ToolCallID: m.ToolCallID, Reasoning: m.Reasoning}
	if m.Role == "tool" {
		row.ToolName = m.Name
	}
	if len(m.ToolCalls) > 0 {
		b, err := json.Marshal(m.ToolCalls)
		if err != nil {
			return err
		}
		row.ToolCallsJSON = string(b)
	}
	return r.a.cfg.Store.InTx(context.WithoutCancel(ctx), r.a.cfg.Epoch, func(tx *store.Tx) error {
		_, err := tx.AppendMessage(row)
		return err
	})
}

func (r *recorder) Text(delta string)      { r.delta(protocol.EventMessageDelta, delta) }
func (r *recorder) Reasoning(delta string) { r.delta(protocol.EventReasoningDelta, delta) }

func (r *recorder) delta(typ, text string) {
	b, _ := json.Marshal(protocol.DeltaPayload{Text: text})
	r.a.cfg.Hub.Publish(r.l.id, protocol.Event{
		Type: typ, SessionID: r.l.id, Payload: b, AuthorityEpoch: r.a.cfg.Epoch,
		ExecutionGeneration: r.s.generation, AdmissionID: r.s.admissionID,
	})
}

func (r *recorder) ToolStart(callID, name string, args json.RawMessage) {
	if !json.Valid(args) {
		b, _ := json.Marshal(string(args))
		args = b
	}
	p := protocol.ToolStartPayload{ToolID: callID, Name: name, Args: args}
	r.journal(protocol.EventToolStart, p)
}

func (r *recorder) ToolComplete(callID, name string, res tools.Result) {
	p := protocol.ToolCompletePayload{ToolID: callID, Name: name, Result: res.Output}
	if len(p.Result) > maxEventResult {
		p.Result, p.Truncated = p.Result[:maxEventResult], true
	}
	if res.IsError {
		p.Error, _, _ = strings.Cut(res.Output, "\n")
		if p.Error == "" {
			p.Error = "tool error"
		}
	}
	r.journal(protocol.EventToolComplete, p)
}

func (r *recorder) journal(typ string, payload any) {
	if err := r.a.emit(context.WithoutCancel(r.a.ctx), r.l, typ, payload, r.s); err != nil {
		r.a.log.Error("journal event failed", "type", typ, "session_id", r.l.id, "err", err)
	}
}
