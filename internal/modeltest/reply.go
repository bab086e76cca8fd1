package modeltest

import (
	"strconv"

	"github.com/hermes-gateway/hermes/internal/model"
)

// Stream dialects for Reply.Quirk.
const (
	// QuirkOllama: reasoning in "reasoning"; every tool call whole in one
	// chunk without index; finish_reason "stop" even with tool calls;
	// usage in the finish chunk.
	QuirkOllama = "ollama"
	// QuirkVLLM: reasoning in "reasoning_content"; a final usage chunk with
	// empty choices, always; "\r\n" line endings.
	QuirkVLLM = "vllm"
	// QuirkLlamaCpp: "data:" without a space; tool call arguments as a JSON
	// object; "timings" fields; usage in the finish chunk; no [DONE] (the
	// stream just ends after the finish chunk).
	QuirkLlamaCpp = "llamacpp"
)

// Reply describes how the server answers one request. The zero Reply is an
// empty assistant message.
type Reply struct {
	Text      string
	Reasoning string
	ToolCalls []Call
	Usage     *model.Usage // nil = an estimate from the sizes
	// FinishReason overrides the reported finish reason.
	FinishReason string

	// Status other than 0/200 answers with that status and ErrorBody
	// (default: an OpenAI error object).
	Status    int
	ErrorBody string

	// Hold blocks the reply until the barrier is released (or the client
	// goes away, or the server closes).
	Hold *Barrier
	// Drop closes the connection without any response.
	Drop bool
	// ResetAfterChunks > 0 closes the connection after that many data
	// chunks (for a JSON reply: after half the body).
	ResetAfterChunks int
	// NeverEnd sends the content, then keeps the stream open without a
	// finish_reason until the client goes away.
	NeverEnd bool
	// InvalidSSE sends a malformed data line after the first content chunk.
	InvalidSSE bool
	// Chunk splits text and arguments into pieces of about N bytes (at rune
	// boundaries); 0 = text in one piece, arguments in two.
	Chunk int
	// Quirk selects a server dialect (QuirkOllama, QuirkVLLM,
	// QuirkLlamaCpp); "" is OpenAI's.
	Quirk string
}

// Text is a reply with a final answer.
func Text(s string) Reply { return Reply{Text: s} }

// ToolCall is a reply with one tool call.
func ToolCall(name, args string) Reply {
	return Reply{ToolCalls: []Call{{Name: name, Args: args}}}
}

// ToolCalls is a reply with several tool calls, in order.
func ToolCalls(calls ...Call) Reply { return Reply{ToolCalls: calls} }

// finish is the finish_reason the dialect reports.
func (r *Reply) finish() string {
	switch {
	case r.FinishReason != "":
		return r.FinishReason
	case len(r.ToolCalls) > 0 && r.Quirk != QuirkOllama:
		return "tool_calls"
	default:
		return "stop"
	}
}

func (r *Reply) reasoningField() string {
	if r.Quirk == QuirkOllama {
		return "reasoning"
	}
	return "reasoning_content"
}

// usage is the reply's usage, or an estimate (4 bytes per token).
func (r *Reply) usage(req *Request) model.Usage {
	if r.Usage != nil {
		return *r.Usage
	}
	out := len(r.Text) + len(r.Reasoning)
	for _, c := range r.ToolCalls {
		out += len(c.Name) + len(c.Args)
	}
	u := model.Usage{PromptTokens: len(req.Raw)/4 + 1, CompletionTokens: out/4 + 1}
	u.TotalTokens = u.PromptTokens + u.CompletionTokens
	return u
}

// calls returns the tool calls with ids filled in (call_<request>_<i>).
func (r *Reply) calls(req *Request) []Call {
	out := append([]Call(nil), r.ToolCalls...)
	for i := range out {
		if out[i].ID == "" {
			out[i].ID = "call_" + strconv.Itoa(req.N) + "_" + strconv.Itoa(i)
		}
	}
	return out
}

// split cuts s into pieces of about n bytes at rune boundaries.
func split(s string, n int) []string {
	if n <= 0 || len(s) <= n {
		if s == "" {
			return nil
		}
		return []string{s}
	}
	var out []string
	for len(s) > 0 {
		end := min(n, len(s))
		for end < len(s) && !runeStart(s[end]) {
			end++
		}
		out = append(out, s[:end])
		s = s[end:]
	}
	return out
}

func runeStart(b byte) bool { return b&0xC0 != 0x80 }
