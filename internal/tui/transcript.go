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
	text  string   // user/assistant/note text; tool: argument summary
	md    []string // assistant: text rendered as markdown at the model's width; nil while streaming
	tool  string   // tool name
	id    string   // tool call id
	state string   // tool state
	out   string   // tool: the result text ("" until it completes)
	err   string   // tool: first line of the error when state is toolFailed
	open  bool     // tool: the output is unfolded
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
// tool result completes its call (folded). failed holds the errors that
// tool.complete events reported, by tool id; they beat the guess that
// toolError makes from a stored result, which carries no error flag.
func transcript(msgs []protocol.Message, failed map[string]string) []entry {
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
			finishTool(out, msg.ToolCallID, msg.Content, storedError(out, msg, failed))
		}
	}
	return out
}

// storedError is the error of a stored tool result: the one its
// tool.complete event reported, else what its text shows.
func storedError(es []entry, msg protocol.Message, failed map[string]string) string {
	if e, ok := failed[msg.ToolCallID]; ok {
		return e
	}
	name := msg.ToolName
	if i := toolIndex(es, msg.ToolCallID); name == "" && i >= 0 {
		name = es[i].tool
	}
	return toolError(name, msg.Content)
}

// finishTool records the result of the tool entry with call id: failed
// when errText is not empty.
func finishTool(es []entry, id, out, errText string) {
	i := toolIndex(es, id)
	if i < 0 {
		return
	}
	es[i].state, es[i].out, es[i].err = toolDone, out, errText
	if errText != "" {
		es[i].state = toolFailed
	}
}

// toolIndex is the index of the latest tool entry with call id, or -1.
func toolIndex(es []entry, id string) int {
	for i := len(es) - 1; i >= 0; i-- {
		if es[i].kind == kindTool && es[i].id == id {
			return i
		}
	}
	return -1
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
