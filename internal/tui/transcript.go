package tui

import (
	"encoding/json"
	"strings"

	"github.com/hermes-gateway/hermes/internal/protocol"
)

type entryKind int

const (
	kindUser entryKind = iota
	kindAssistant
	kindTool
	kindNote
)

// Tool call states.
const (
	toolRunning = "running"
	toolDone    = "done"
	toolFailed  = "failed"
)

// entry is one block of the transcript.
type entry struct {
	kind  entryKind
	text  string // user/assistant/note text; tool: argument summary
	tool  string // tool name
	id    string // tool call id
	state string // tool state
}

// wireToolCall is the part of a stored assistant tool call the UI shows.
type wireToolCall struct {
	ID       string `json:"id"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// transcript converts stored messages to entries: tool calls compact, a
// tool result only marks its call done.
func transcript(msgs []protocol.Message) []entry {
	var out []entry
	for _, msg := range msgs {
		switch msg.Role {
		case "user":
			out = append(out, entry{kind: kindUser, text: msg.Content})
		case "assistant":
			if strings.TrimSpace(msg.Content) != "" {
				out = append(out, entry{kind: kindAssistant, text: msg.Content})
			}
			var calls []wireToolCall
			_ = json.Unmarshal(msg.ToolCalls, &calls)
			for _, c := range calls {
				out = append(out, entry{kind: kindTool, tool: c.Function.Name, id: c.ID,
					text: argSummary(c.Function.Name, json.RawMessage(c.Function.Arguments)), state: toolRunning})
			}
		case "tool":
			markTool(out, msg.ToolCallID, toolDone)
		}
	}
	return out
}

// markTool sets the state of the tool entry with call id.
func markTool(es []entry, id, state string) {
	for i := len(es) - 1; i >= 0; i-- {
		if es[i].kind == kindTool && es[i].id == id {
			es[i].state = state
			return
		}
	}
}

// argSummary is a one-line view of a tool call's arguments.
func argSummary(name string, args json.RawMessage) string {
	var m map[string]any
	if json.Unmarshal(args, &m) == nil {
		for _, k := range []string{"command", "path", "pattern", "question"} {
			if v, ok := m[k].(string); ok {
				return clip(v, 72)
			}
		}
		if name == "clarify" || name == "todo" {
			return ""
		}
	}
	var s string
	if json.Unmarshal(args, &s) == nil {
		return clip(s, 72)
	}
	return clip(string(args), 72)
}

// clip flattens s to one line of at most n runes.
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
