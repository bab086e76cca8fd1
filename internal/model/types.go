package model

import (
	"encoding/json"
)

// Roles of chat messages.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// Message is one chat message. On the wire, Content is null when it is empty
// and the message carries tool calls; Reasoning is never sent back to the
// model (it is only reported and kept for the transcript).
type Message struct {
	Role       string
	Content    string
	ToolCalls  []ToolCall
	ToolCallID string // set on role "tool": the call this message answers
	Name       string // optional; tool name on role "tool"
	Reasoning  string // reasoning text the model produced; not sent on the wire
}

// ToolCall is one function call requested by the model.
type ToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"` // "function"
	Function FunctionCall `json:"function"`
}

// FunctionCall names the function and carries its arguments as a JSON text.
type FunctionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// ToolSchema is one tool offered to the model.
type ToolSchema struct {
	Type     string         `json:"type"` // "function"
	Function FunctionSchema `json:"function"`
}

// FunctionSchema describes a function; Parameters is a JSON Schema object.
type FunctionSchema struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
}

// Request is one chat completion request.
type Request struct {
	Model           string
	Messages        []Message
	Tools           []ToolSchema
	Stream          bool
	ReasoningEffort string // "" = not sent
	MaxTokens       int    // <= 0 = not sent
}

// Usage counts tokens of one completion. CachedTokens is the part of
// PromptTokens the server read from its prompt cache, where it says so
// (OpenAI prompt_tokens_details.cached_tokens, DeepSeek
// prompt_cache_hit_tokens); 0 when it does not.
type Usage struct {
	PromptTokens     int
	CompletionTokens int
	TotalTokens      int
	CachedTokens     int
}

// wireUsage is the JSON shape of Usage (OpenAI's, which MarshalJSON writes
// too, so a Usage round-trips).
type wireUsage struct {
	PromptTokens        int               `json:"prompt_tokens"`
	CompletionTokens    int               `json:"completion_tokens"`
	TotalTokens         int               `json:"total_tokens"`
	PromptTokensDetails *promptTokensInfo `json:"prompt_tokens_details,omitempty"`
	CacheHitTokens      int               `json:"prompt_cache_hit_tokens,omitempty"` // DeepSeek
}

type promptTokensInfo struct {
	CachedTokens int `json:"cached_tokens"`
}

// MarshalJSON writes the OpenAI shape; prompt_tokens_details only when
// tokens were cached.
func (u Usage) MarshalJSON() ([]byte, error) {
	w := wireUsage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, TotalTokens: u.TotalTokens}
	if u.CachedTokens > 0 {
		w.PromptTokensDetails = &promptTokensInfo{CachedTokens: u.CachedTokens}
	}
	return json.Marshal(w)
}

// UnmarshalJSON reads the OpenAI shape and DeepSeek's cache field. A
// cached count outside 0..prompt_tokens is not believed (0).
func (u *Usage) UnmarshalJSON(b []byte) error {
	var w wireUsage
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*u = Usage{PromptTokens: w.PromptTokens, CompletionTokens: w.CompletionTokens, TotalTokens: w.TotalTokens}
	cached := w.CacheHitTokens
	if w.PromptTokensDetails != nil {
		cached = w.PromptTokensDetails.CachedTokens
	}
	if cached > 0 && cached <= w.PromptTokens {
		u.CachedTokens = cached
	}
	return nil
}

// Add returns the field-wise sum of u and o.
func (u Usage) Add(o Usage) Usage {
	return Usage{
		PromptTokens:     u.PromptTokens + o.PromptTokens,
		CompletionTokens: u.CompletionTokens + o.CompletionTokens,
		TotalTokens:      u.TotalTokens + o.TotalTokens,
		CachedTokens:     u.CachedTokens + o.CachedTokens,
	}
}

// Response is the assistant's reply. FinishReason is "tool_calls" whenever
// Message.ToolCalls is non-empty, whatever the server said (Ollama says
// "stop"). Usage is nil when the server reported none.
type Response struct {
	Message      Message
	FinishReason string
	Usage        *Usage
}

// Handler receives streaming deltas as they arrive, on the goroutine that
// called Complete. A nil Handler is allowed.
type Handler interface {
	Text(delta string)
	Reasoning(delta string)
}

// wireMessage is the JSON shape of Message.
type wireMessage struct {
	Role       string     `json:"role"`
	Content    *string    `json:"content"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
	Name       string     `json:"name,omitempty"`
}

// MarshalJSON writes the OpenAI shape: content null when empty beside tool
// calls, tool call type defaulted to "function", no reasoning.
func (m Message) MarshalJSON() ([]byte, error) {
	w := wireMessage{Role: m.Role, ToolCallID: m.ToolCallID, Name: m.Name}
	if m.Content != "" || len(m.ToolCalls) == 0 {
		c := m.Content
		w.Content = &c
	}
	for _, tc := range m.ToolCalls {
		if tc.Type == "" {
			tc.Type = "function"
		}
		w.ToolCalls = append(w.ToolCalls, tc)
	}
	return json.Marshal(w)
}

// UnmarshalJSON reads the OpenAI shape written by MarshalJSON (so a
// transcript stored as JSON round-trips; Reasoning is not part of it).
func (m *Message) UnmarshalJSON(b []byte) error {
	var w wireMessage
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*m = Message{Role: w.Role, ToolCalls: w.ToolCalls, ToolCallID: w.ToolCallID, Name: w.Name}
	if w.Content != nil {
		m.Content = *w.Content
	}
	return nil
}

// wireRequest is the JSON shape of Request.
type wireRequest struct {
	Model           string         `json:"model"`
	Messages        []Message      `json:"messages"`
	Tools           []ToolSchema   `json:"tools,omitempty"`
	Stream          bool           `json:"stream"`
	StreamOptions   *streamOptions `json:"stream_options,omitempty"`
	ReasoningEffort string         `json:"reasoning_effort,omitempty"`
	MaxTokens       int            `json:"max_tokens,omitempty"`
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

// MarshalJSON writes the OpenAI request body. Streaming requests ask for a
// final usage chunk (stream_options.include_usage).
func (r Request) MarshalJSON() ([]byte, error) {
	w := wireRequest{
		Model: r.Model, Messages: r.Messages, Tools: r.Tools, Stream: r.Stream,
		ReasoningEffort: r.ReasoningEffort,
	}
	if w.Messages == nil {
		w.Messages = []Message{}
	}
	if r.MaxTokens > 0 {
		w.MaxTokens = r.MaxTokens
	}
	if r.Stream {
		w.StreamOptions = &streamOptions{IncludeUsage: true}
	}
	return json.Marshal(w)
}
