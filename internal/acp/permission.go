package acp

import (
	"encoding/json"
	"slices"
	"strconv"

	"github.com/hermes-gateway/hermes/internal/ids"
	"github.com/hermes-gateway/hermes/internal/protocol"
)

// approvalOptions maps gateway approval choices to ACP permission options.
var approvalOptions = []map[string]string{
	{"optionId": protocol.ChoiceOnce, "name": "Allow once", "kind": "allow_once"},
	{"optionId": protocol.ChoiceSession, "name": "Allow for this session", "kind": "allow_always"},
	{"optionId": protocol.ChoiceAlways, "name": "Always allow (add to the allowlist)", "kind": "allow_always"},
	{"optionId": protocol.ChoiceDeny, "name": "Deny", "kind": "reject_once"},
}

// ask forwards an approval to the editor as session/request_permission and
// answers approval.respond with the chosen option (deny when cancelled).
func (p *pump) ask(sid, toolID string, r protocol.ApprovalRequestPayload) {
	p.permission(approvalRequest(sid, toolID, r), func(choice string) {
		if !slices.Contains(r.Choices, choice) {
			choice = protocol.ChoiceDeny
		}
		_, _ = p.g.c.RespondApproval(p.a.ctx, protocol.ApprovalRespondParams{
			SessionID: sid, ExecutionGeneration: r.ExecutionGeneration, PromptID: r.PromptID, Choice: choice})
	})
}

// approvalRequest is the session/request_permission of an approval. The
// title is what the editor shows the user: escaped (protocol.Visible);
// rawInput keeps the exact command for programs.
func approvalRequest(sid, toolID string, r protocol.ApprovalRequestPayload) map[string]any {
	var opts []map[string]string
	for _, o := range approvalOptions {
		if slices.Contains(r.Choices, o["optionId"]) {
			opts = append(opts, o)
		}
	}
	return permissionRequest(sid, toolID, protocol.Visible(r.Command), "execute", opts,
		map[string]string{"command": r.Command, "description": r.Description})
}

// clarify offers a question's choices as permission options; a question
// without choices (or a cancelled request) gets an empty answer.
func (p *pump) clarify(sid, toolID string, r protocol.ClarifyRequestPayload) {
	respond := func(answer string) {
		_, _ = p.g.c.RespondClarify(p.a.ctx, protocol.ClarifyRespondParams{
			SessionID: sid, ExecutionGeneration: r.ExecutionGeneration, PromptID: r.PromptID, Answer: answer})
	}
	if len(r.Choices) == 0 {
		p.background(func() { respond("") })
		return
	}
	opts := make([]map[string]string, len(r.Choices))
	for i, c := range r.Choices {
		opts[i] = map[string]string{"optionId": strconv.Itoa(i), "name": protocol.Visible(c), "kind": "allow_once"}
	}
	req := permissionRequest(sid, toolID, protocol.VisibleText(r.Question), "think", opts, map[string]any{"question": r.Question, "choices": r.Choices})
	p.permission(req, func(id string) {
		answer := ""
		if i, err := strconv.Atoi(id); err == nil && i >= 0 && i < len(r.Choices) {
			answer = r.Choices[i]
		}
		respond(answer)
	})
}

func permissionRequest(sid, toolID, title, kind string, opts []map[string]string, raw any) map[string]any {
	if toolID == "" {
		toolID = ids.New("prompt-", 12)
	}
	return map[string]any{
		"sessionId": sid,
		"toolCall":  map[string]any{"toolCallId": toolID, "title": title, "kind": kind, "status": "pending", "rawInput": raw},
		"options":   opts,
	}
}

// permission sends the request on a goroutine of its own (the editor may
// take its time) and passes the selected option id ("" when cancelled) to
// answer.
func (p *pump) permission(req map[string]any, answer func(optionID string)) {
	p.background(func() {
		ch, err := p.a.p.call("session/request_permission", req)
		if err != nil {
			return
		}
		var m *message
		select {
		case m = <-ch:
		case <-p.a.ctx.Done():
			return
		}
		answer(selected(m))
	})
}

func (p *pump) background(f func()) {
	p.a.wg.Add(1)
	go func() {
		defer p.a.wg.Done()
		f()
	}()
}

// selected is the optionId of a request_permission reply, "" otherwise.
func selected(m *message) string {
	if m == nil || m.Error != nil {
		return ""
	}
	var r struct {
		Outcome struct {
			Outcome  string `json:"outcome"`
			OptionID string `json:"optionId"`
		} `json:"outcome"`
	}
	if json.Unmarshal(m.Result, &r) != nil || r.Outcome.Outcome != "selected" {
		return ""
	}
	return r.Outcome.OptionID
}
