package authority

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"

	"github.com/hermes-gateway/hermes/internal/model"
	"github.com/hermes-gateway/hermes/internal/protocol"
	"github.com/hermes-gateway/hermes/internal/store"
	"github.com/hermes-gateway/hermes/internal/tools"
)

// maxEventResult cuts a tool result carried in an event (docs/protocol.md#replay).
const maxEventResult = 64 << 10

// recorder persists a turn's messages to the physical transcript as they
// complete and journals its tool events; deltas go live only.
type recorder struct {
	j    turnJournal
	l    *live
	s    stamp
	phys string
	log  *slog.Logger
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
	return r.j.appendMessage(context.WithoutCancel(ctx), row)
}

func (r *recorder) Text(delta string)      { r.delta(protocol.EventMessageDelta, delta) }
func (r *recorder) Reasoning(delta string) { r.delta(protocol.EventReasoningDelta, delta) }

func (r *recorder) delta(typ, text string) {
	r.j.publishLive(r.l, typ, protocol.DeltaPayload{Text: text}, r.s)
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
	if err := r.j.emitDetached(r.l, typ, payload, r.s); err != nil {
		r.log.Error("journal event failed", "type", typ, "session_id", r.l.id, "err", err)
	}
}
