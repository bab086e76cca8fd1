package acp

import (
	"encoding/json"
	"strings"

	"github.com/hermes-gateway/hermes/internal/protocol"
)

// update maps a streamed gateway event to ACP session updates.
func update(ev protocol.Event) []map[string]any {
	switch ev.Type {
	case protocol.EventMessageDelta, protocol.EventReasoningDelta:
		var d protocol.DeltaPayload
		if json.Unmarshal(ev.Payload, &d) != nil || d.Text == "" {
			return nil
		}
		kind := "agent_message_chunk"
		if ev.Type == protocol.EventReasoningDelta {
			kind = "agent_thought_chunk"
		}
		return []map[string]any{chunk(kind, d.Text)}
	case protocol.EventToolStart:
		var s protocol.ToolStartPayload
		if json.Unmarshal(ev.Payload, &s) != nil {
			return nil
		}
		return []map[string]any{toolCall(s.ToolID, s.Name, s.Args)}
	case protocol.EventToolComplete:
		var c protocol.ToolCompletePayload
		if json.Unmarshal(ev.Payload, &c) != nil {
			return nil
		}
		return toolDone(c.ToolID, c.Name, c.Result, c.Error != "")
	}
	return nil
}

func chunk(kind, text string) map[string]any {
	return map[string]any{"sessionUpdate": kind, "content": map[string]string{"type": "text", "text": text}}
}

func toolCall(id, name string, args json.RawMessage) map[string]any {
	u := map[string]any{
		"sessionUpdate": "tool_call", "toolCallId": id, "title": toolTitle(name, args),
		"kind": toolKind(name), "status": "in_progress",
	}
	if json.Valid(args) && len(args) > 0 {
		u["rawInput"] = args
	}
	return u
}

// toolDone is the tool_call_update of a finished call, plus a plan update
// when the todo tool returned its list.
func toolDone(id, name, result string, failed bool) []map[string]any {
	status := "completed"
	if failed {
		status = "failed"
	}
	out := []map[string]any{{
		"sessionUpdate": "tool_call_update", "toolCallId": id, "status": status,
		"content": []any{map[string]any{"type": "content", "content": map[string]string{"type": "text", "text": protocol.VisibleText(result)}}},
	}}
	if name == "todo" && !failed {
		if p := plan(result); p != nil {
			out = append(out, p)
		}
	}
	return out
}

// plan maps the todo tool's result {todos:[{content,status}]} to a plan.
func plan(result string) map[string]any {
	var r struct {
		Todos []struct {
			Content string `json:"content"`
			Status  string `json:"status"`
		} `json:"todos"`
	}
	if json.Unmarshal([]byte(result), &r) != nil || r.Todos == nil {
		return nil
	}
	entries := make([]map[string]string, 0, len(r.Todos))
	for _, t := range r.Todos {
		st := t.Status
		if st != "in_progress" && st != "completed" {
			st = "pending"
		}
		entries = append(entries, map[string]string{"content": protocol.Visible(t.Content), "priority": "medium", "status": st})
	}
	return map[string]any{"sessionUpdate": "plan", "entries": entries}
}

func toolKind(name string) string {
	switch name {
	case "terminal":
		return "execute"
	case "read_file", "project_overview", "skill_view", "skills_list":
		return "read"
	case "write_file", "patch":
		return "edit"
	case "search_files":
		return "search"
	case "clarify", "todo":
		return "think"
	}
	return "other"
}

func toolTitle(name string, args json.RawMessage) string {
	var m map[string]any
	if json.Unmarshal(args, &m) == nil {
		for _, k := range []string{"command", "path", "pattern"} {
			if v, ok := m[k].(string); ok {
				return protocol.Visible(name + ": " + oneLine(v))
			}
		}
	}
	return protocol.Visible(name)
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 120 {
		return string(r[:119]) + "…"
	}
	return s
}

// history replays a transcript as session updates (session/load).
func history(msgs []protocol.Message) []map[string]any {
	var out []map[string]any
	names := map[string]string{}
	for _, m := range msgs {
		switch m.Role {
		case "user":
			out = append(out, chunk("user_message_chunk", m.Content))
		case "assistant":
			if m.Content != "" {
				out = append(out, chunk("agent_message_chunk", m.Content))
			}
			var calls []struct {
				ID       string `json:"id"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			}
			_ = json.Unmarshal(m.ToolCalls, &calls)
			for _, c := range calls {
				names[c.ID] = c.Function.Name
				out = append(out, toolCall(c.ID, c.Function.Name, json.RawMessage(c.Function.Arguments)))
			}
		case "tool":
			out = append(out, toolDone(m.ToolCallID, names[m.ToolCallID], m.Content, false)...)
		}
	}
	return out
}
