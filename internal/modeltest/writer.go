package modeltest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// obj is a JSON object under construction.
type obj = map[string]any

// writer answers one request.
type writer struct {
	w      http.ResponseWriter
	reply  Reply
	req    *Request
	gone   <-chan struct{} // the client went away
	closed <-chan struct{} // the server is closing
	sent   int             // data chunks written
}

// json writes a non-streaming chat.completion.
func (wr *writer) json() {
	r := &wr.reply
	msg := obj{"role": "assistant", "content": r.Text}
	if r.Text == "" && len(r.ToolCalls) > 0 {
		msg["content"] = nil
	}
	if r.Reasoning != "" {
		msg[r.reasoningField()] = r.Reasoning
	}
	if calls := r.calls(wr.req); len(calls) > 0 {
		var list []obj
		for _, c := range calls {
			list = append(list, obj{"id": c.ID, "type": "function",
				"function": obj{"name": c.Name, "arguments": c.Args}})
		}
		msg["tool_calls"] = list
	}
	body := wr.envelope("chat.completion")
	body["choices"] = []obj{{"index": 0, "message": msg, "finish_reason": r.finish()}}
	body["usage"] = r.usage(wr.req)
	wr.quirkExtras(body)
	b, _ := json.Marshal(body)
	wr.w.Header().Set("Content-Type", "application/json")
	switch {
	case r.ResetAfterChunks > 0:
		_, _ = wr.w.Write(b[:len(b)/2])
		hangUp(wr.w, true)
	case r.NeverEnd:
		_, _ = wr.w.Write(b[:len(b)/2])
		wr.flush()
		wr.block()
	default:
		_, _ = wr.w.Write(b)
	}
}

func (wr *writer) envelope(object string) obj {
	return obj{"id": fmt.Sprintf("chatcmpl-modeltest-%d", wr.req.N), "object": object,
		"created": time.Now().Unix(), "model": wr.req.Model}
}

func (wr *writer) quirkExtras(body obj) {
	if wr.reply.Quirk == QuirkLlamaCpp {
		body["timings"] = obj{"prompt_n": 1, "prompt_ms": 0.5, "predicted_n": 1, "predicted_ms": 0.5}
	}
}

// stream writes the SSE reply: comment, role, reasoning, text, tool calls,
// finish, usage, [DONE], with the dialect's variations and the reply's
// faults.
func (wr *writer) stream() {
	h := wr.w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	wr.w.WriteHeader(http.StatusOK)
	wr.line(": keep-alive")
	wr.line("")
	for i, ev := range wr.chunks() {
		if wr.reply.NeverEnd && ev.final {
			break // stop right before the finish chunk
		}
		if !wr.data(ev.payload) {
			return
		}
		if wr.reply.InvalidSSE && i == 1 {
			wr.line(`data: {"choices":[{"index":0,"delta":{"content":`)
			wr.line("")
		}
		if wr.reply.ResetAfterChunks > 0 && wr.sent >= wr.reply.ResetAfterChunks {
			hangUp(wr.w, true)
			return
		}
	}
	if wr.reply.NeverEnd {
		wr.flush()
		wr.block()
		return
	}
	if wr.reply.Quirk != QuirkLlamaCpp {
		wr.line("data: [DONE]")
		wr.line("")
	}
	wr.flush()
}

// event is one data payload; final marks the finish_reason chunk.
type event struct {
	payload obj
	final   bool
}

// chunks builds the data payloads in order.
func (wr *writer) chunks() []event {
	r := &wr.reply
	var out []event
	add := func(delta obj) { out = append(out, event{payload: wr.chunk(delta, nil)}) }
	add(obj{"role": "assistant", "content": ""})
	for _, piece := range split(r.Reasoning, r.Chunk) {
		add(obj{r.reasoningField(): piece})
	}
	for _, piece := range split(r.Text, r.Chunk) {
		add(obj{"content": piece})
	}
	for _, calls := range wr.toolDeltas() {
		add(obj{"tool_calls": calls})
	}
	out = append(out, event{payload: wr.finishChunk(), final: true})
	if r.Quirk == QuirkVLLM || (r.Quirk == "" && wr.req.IncludeUsage) {
		u := wr.envelope("chat.completion.chunk")
		u["choices"] = []obj{}
		u["usage"] = r.usage(wr.req)
		out = append(out, event{payload: u})
	}
	return out
}

func (wr *writer) chunk(delta obj, finish any) obj {
	c := wr.envelope("chat.completion.chunk")
	c["choices"] = []obj{{"index": 0, "delta": delta, "finish_reason": finish}}
	return c
}

// finishChunk carries finish_reason (and usage for Ollama/llama.cpp).
func (wr *writer) finishChunk() obj {
	c := wr.chunk(obj{}, wr.reply.finish())
	if wr.reply.Quirk == QuirkOllama || wr.reply.Quirk == QuirkLlamaCpp {
		c["usage"] = wr.reply.usage(wr.req)
	}
	wr.quirkExtras(c)
	return c
}

// toolDeltas returns the tool_calls arrays of successive chunks, in the
// dialect's shape.
func (wr *writer) toolDeltas() [][]obj {
	r := &wr.reply
	calls := r.calls(wr.req)
	if len(calls) == 0 {
		return nil
	}
	if r.Quirk == QuirkOllama {
		var list []obj
		for _, c := range calls {
			list = append(list, obj{"id": c.ID, "type": "function",
				"function": obj{"name": c.Name, "arguments": c.Args}})
		}
		return [][]obj{list}
	}
	var out [][]obj
	for i, c := range calls {
		first := obj{"index": i, "id": c.ID, "type": "function", "function": obj{"name": c.Name, "arguments": ""}}
		if r.Quirk == QuirkLlamaCpp && json.Valid([]byte(c.Args)) {
			first["function"] = obj{"name": c.Name, "arguments": json.RawMessage(c.Args)}
			out = append(out, []obj{first})
			continue
		}
		out = append(out, []obj{first})
		for _, piece := range argPieces(c.Args, r.Chunk) {
			out = append(out, []obj{{"index": i, "function": obj{"arguments": piece}}})
		}
	}
	return out
}

func argPieces(args string, n int) []string {
	if n <= 0 {
		n = max(1, (len(args)+1)/2)
	}
	return split(args, n)
}

// data writes one payload; false when the client is gone.
func (wr *writer) data(payload obj) bool {
	b, _ := json.Marshal(payload)
	prefix := "data: "
	if wr.reply.Quirk == QuirkLlamaCpp {
		prefix = "data:"
	}
	wr.line(prefix + string(b))
	wr.line("")
	wr.sent++
	wr.flush()
	select {
	case <-wr.gone:
		return false
	default:
		return true
	}
}

func (wr *writer) line(s string) {
	end := "\n"
	if wr.reply.Quirk == QuirkVLLM {
		end = "\r\n"
	}
	_, _ = wr.w.Write([]byte(s + end))
}

func (wr *writer) flush() {
	if f, ok := wr.w.(http.Flusher); ok {
		f.Flush()
	}
}

// block holds the response open until the client goes or the server closes.
func (wr *writer) block() {
	select {
	case <-wr.gone:
	case <-wr.closed:
	}
}
