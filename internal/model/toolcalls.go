package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/hermes-gateway/hermes/internal/ids"
)

// toolCallDelta is one tool call fragment (streaming) or a whole call
// (JSON reply, Ollama streams). Index may be missing; Arguments may be a
// string fragment or, from some llama.cpp builds, a JSON object.
type toolCallDelta struct {
	Index    *int   `json:"index"`
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

type partialCall struct {
	index    int
	id, name string
	args     strings.Builder
}

// callAssembler reassembles fragments into calls in index order.
type callAssembler struct {
	calls []*partialCall
}

// target finds the call a fragment belongs to, creating it when new.
// Without an index: a known id continues that call; a new id or a name
// starts a call; a bare fragment continues the last call.
func (a *callAssembler) target(d toolCallDelta) *partialCall {
	if d.Index != nil {
		for _, c := range a.calls {
			if c.index == *d.Index {
				return c
			}
		}
		return a.start(*d.Index)
	}
	if d.ID != "" {
		for _, c := range a.calls {
			if c.id == d.ID {
				return c
			}
		}
	}
	if d.ID != "" || d.Function.Name != "" || len(a.calls) == 0 {
		next := 0
		for _, c := range a.calls {
			next = max(next, c.index+1)
		}
		return a.start(next)
	}
	return a.calls[len(a.calls)-1]
}

func (a *callAssembler) start(index int) *partialCall {
	c := &partialCall{index: index}
	a.calls = append(a.calls, c)
	return c
}

func (a *callAssembler) add(d toolCallDelta) error {
	c := a.target(d)
	if d.ID != "" {
		c.id = d.ID
	}
	c.name += d.Function.Name
	raw := bytes.TrimSpace(d.Function.Arguments)
	switch {
	case len(raw) == 0 || string(raw) == "null":
	case raw[0] == '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return fmt.Errorf("%w: tool call arguments: %v", ErrMalformed, err)
		}
		c.args.WriteString(s)
	default: // a JSON object instead of a string: re-encode compactly
		var buf bytes.Buffer
		if err := json.Compact(&buf, raw); err != nil {
			return fmt.Errorf("%w: tool call arguments: %v", ErrMalformed, err)
		}
		c.args.Write(buf.Bytes())
	}
	return nil
}

// result returns the calls sorted by index; missing ids are generated and
// empty arguments become "{}".
func (a *callAssembler) result() []ToolCall {
	if len(a.calls) == 0 {
		return nil
	}
	sort.SliceStable(a.calls, func(i, j int) bool { return a.calls[i].index < a.calls[j].index })
	out := make([]ToolCall, 0, len(a.calls))
	for _, c := range a.calls {
		tc := ToolCall{ID: c.id, Type: "function", Function: FunctionCall{Name: c.name, Arguments: c.args.String()}}
		if tc.ID == "" {
			tc.ID = ids.New("call_", 12)
		}
		if strings.TrimSpace(tc.Function.Arguments) == "" {
			tc.Function.Arguments = "{}"
		}
		out = append(out, tc)
	}
	return out
}

// completion is a non-streaming chat.completion.
type completion struct {
	Choices []struct {
		Message      delta  `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage *Usage          `json:"usage"`
	Error json.RawMessage `json:"error"`
}

// decodeCompletion parses a JSON reply body.
func decodeCompletion(b []byte, status int, key string) (*Response, error) {
	var c completion
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	if len(c.Choices) == 0 {
		if len(c.Error) > 0 && string(c.Error) != "null" {
			e := parseAPIError(status, b, key)
			e.Retryable = false
			return nil, e
		}
		return nil, fmt.Errorf("%w: no choices", ErrMalformed)
	}
	ch := c.Choices[0]
	text, err := ch.Message.text()
	if err != nil {
		return nil, fmt.Errorf("%w: content: %v", ErrMalformed, err)
	}
	var calls callAssembler
	for _, tc := range ch.Message.ToolCalls {
		if err := calls.add(tc); err != nil {
			return nil, err
		}
	}
	msg := Message{Role: RoleAssistant, Content: text, Reasoning: ch.Message.reasoning(), ToolCalls: calls.result()}
	return &Response{Message: msg, FinishReason: finishReason(ch.FinishReason, msg), Usage: c.Usage}, nil
}
