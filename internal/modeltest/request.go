package modeltest

import (
	"encoding/json"
	"net/http"
	"strings"
)

// Request is one captured /chat/completions request, parsed.
type Request struct {
	N               int // 1-based order of arrival
	Model           string
	Messages        []Msg
	Tools           []string // function names offered, in order
	Stream          bool
	IncludeUsage    bool // stream_options.include_usage
	ReasoningEffort string
	MaxTokens       int
	Header          http.Header
	Raw             []byte // the body as received
}

// Msg is one message of a captured request.
type Msg struct {
	Role       string
	Content    string // text; array content is joined; null is ""
	Null       bool   // content was JSON null (or absent)
	ToolCallID string
	Name       string
	ToolCalls  []Call
}

// Call is a tool call, in a Reply or a captured assistant message.
type Call struct {
	ID   string // empty in a Reply: generated
	Name string
	Args string // JSON text
}

type wireReq struct {
	Model    string `json:"model"`
	Messages []struct {
		Role       string          `json:"role"`
		Content    json.RawMessage `json:"content"`
		ToolCallID string          `json:"tool_call_id"`
		Name       string          `json:"name"`
		ToolCalls  []struct {
			ID       string `json:"id"`
			Function struct {
				Name      string `json:"name"`
				Arguments string `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
	} `json:"messages"`
	Tools []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
	Stream        bool `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	ReasoningEffort string `json:"reasoning_effort"`
	MaxTokens       int    `json:"max_tokens"`
}

func parseRequest(raw []byte, h http.Header) (*Request, error) {
	var w wireReq
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, err
	}
	r := &Request{
		Model: w.Model, Stream: w.Stream, ReasoningEffort: w.ReasoningEffort,
		MaxTokens: w.MaxTokens, Header: h.Clone(), Raw: raw,
		IncludeUsage: w.StreamOptions != nil && w.StreamOptions.IncludeUsage,
	}
	for _, t := range w.Tools {
		r.Tools = append(r.Tools, t.Function.Name)
	}
	for _, m := range w.Messages {
		msg := Msg{Role: m.Role, ToolCallID: m.ToolCallID, Name: m.Name}
		msg.Content, msg.Null = contentText(m.Content)
		for _, tc := range m.ToolCalls {
			msg.ToolCalls = append(msg.ToolCalls, Call{ID: tc.ID, Name: tc.Function.Name, Args: tc.Function.Arguments})
		}
		r.Messages = append(r.Messages, msg)
	}
	return r, nil
}

func contentText(raw json.RawMessage) (string, bool) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", true
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, false
	}
	var parts []struct{ Text string }
	_ = json.Unmarshal(raw, &parts)
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String(), false
}

// System returns the content of the first message when it is a system one.
func (r *Request) System() string {
	if len(r.Messages) > 0 && r.Messages[0].Role == "system" {
		return r.Messages[0].Content
	}
	return ""
}

// LastUserText returns the content of the last user message.
func (r *Request) LastUserText() string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == "user" {
			return r.Messages[i].Content
		}
	}
	return ""
}

// ToolResults returns the role "tool" messages, in order.
func (r *Request) ToolResults() []Msg {
	var out []Msg
	for _, m := range r.Messages {
		if m.Role == "tool" {
			out = append(out, m)
		}
	}
	return out
}

// ContainsText reports whether any message content or tool call argument
// contains s.
func (r *Request) ContainsText(s string) bool {
	for _, m := range r.Messages {
		if strings.Contains(m.Content, s) {
			return true
		}
		for _, c := range m.ToolCalls {
			if strings.Contains(c.Args, s) {
				return true
			}
		}
	}
	return false
}

// HasTool reports whether a function named name was offered.
func (r *Request) HasTool(name string) bool {
	for _, t := range r.Tools {
		if t == name {
			return true
		}
	}
	return false
}
