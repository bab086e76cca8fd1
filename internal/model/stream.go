package model

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// chunk is one streamed chat.completion.chunk. Unknown fields (llama.cpp
// "timings", vLLM "prompt_logprobs" …) are ignored.
type chunk struct {
	Choices []struct {
		Index        int     `json:"index"`
		Delta        delta   `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *Usage          `json:"usage"`
	Error json.RawMessage `json:"error"`
}

// delta is the incremental part of a chunk, and the shape of a full message
// in a JSON reply. Reasoning arrives as reasoning_content (vLLM, DeepSeek)
// or reasoning (Ollama, OpenRouter).
type delta struct {
	Content          json.RawMessage `json:"content"`
	ReasoningContent string          `json:"reasoning_content"`
	Reasoning        string          `json:"reasoning"`
	ToolCalls        []toolCallDelta `json:"tool_calls"`
}

func (d *delta) reasoning() string {
	if d.ReasoningContent != "" {
		return d.ReasoningContent
	}
	return d.Reasoning
}

// text decodes content: a string, null, or an array of {type:"text"} parts.
func (d *delta) text() (string, error) {
	raw := bytes.TrimSpace(d.Content)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return "", nil
	}
	var s string
	if raw[0] == '"' {
		err := json.Unmarshal(raw, &s)
		return s, err
	}
	var parts []struct{ Text string }
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", err
	}
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String(), nil
}

// streamState accumulates one streamed reply.
type streamState struct {
	text, reasoning strings.Builder
	calls           callAssembler
	finish          string
	usage           *Usage
	done            bool // [DONE] seen
}

// readStream parses SSE from body until [DONE], EOF or an error. cancel
// aborts the attempt when the idle timer fires.
func (c *Client) readStream(parent, ctx context.Context, cancel context.CancelCauseFunc, body io.Reader, h Handler) (*Response, error) {
	idle := time.AfterFunc(c.cfg.IdleTimeout, func() { cancel(ErrIdleTimeout) })
	defer idle.Stop()
	lr := lineReader{r: bufio.NewReaderSize(body, 64<<10), max: c.cfg.MaxLineBytes}
	var st streamState
	for !st.done {
		line, err := lr.next()
		idle.Reset(c.cfg.IdleTimeout)
		if errors.Is(err, io.EOF) {
			return st.finishEOF(lr.n > 0)
		}
		if err != nil {
			if errors.Is(err, ErrTooLarge) {
				return nil, err
			}
			return nil, c.cutErr(parent, ctx, err, lr.n > 0)
		}
		payload, ok := sseData(line)
		if !ok {
			continue
		}
		if err := st.event(payload, h, c.cfg.APIKey); err != nil {
			return nil, err
		}
	}
	return st.response(), nil
}

// sseData returns the payload of a "data:" line (one optional space after
// the colon); comments, event:, id:, retry: and blank lines are skipped.
// Each data line is one event: the servers never split JSON across lines,
// and some omit the blank separator line.
func sseData(line []byte) ([]byte, bool) {
	rest, ok := bytes.CutPrefix(line, []byte("data:"))
	if !ok {
		return nil, false
	}
	rest = bytes.TrimPrefix(rest, []byte(" "))
	return rest, len(bytes.TrimSpace(rest)) > 0
}

// event applies one data payload.
func (st *streamState) event(payload []byte, h Handler, key string) error {
	if string(bytes.TrimSpace(payload)) == "[DONE]" {
		st.done = true
		return nil
	}
	var ch chunk
	if err := json.Unmarshal(payload, &ch); err != nil {
		return fmt.Errorf("%w: stream event: %v", ErrMalformed, err)
	}
	if len(ch.Error) > 0 && string(ch.Error) != "null" {
		e := parseAPIError(0, append([]byte(`{"error":`), append(ch.Error, '}')...), key)
		e.Retryable = false
		return e
	}
	if ch.Usage != nil {
		st.usage = ch.Usage
	}
	for _, choice := range ch.Choices {
		if choice.Index != 0 {
			continue
		}
		if err := st.delta(&choice.Delta, h); err != nil {
			return err
		}
		if choice.FinishReason != nil && *choice.FinishReason != "" {
			st.finish = *choice.FinishReason
		}
	}
	return nil
}

func (st *streamState) delta(d *delta, h Handler) error {
	if r := d.reasoning(); r != "" {
		st.reasoning.WriteString(r)
		h.Reasoning(r)
	}
	text, err := d.text()
	if err != nil {
		return fmt.Errorf("%w: content: %v", ErrMalformed, err)
	}
	if text != "" {
		st.text.WriteString(text)
		h.Text(text)
	}
	for _, tc := range d.ToolCalls {
		if err := st.calls.add(tc); err != nil {
			return err
		}
	}
	return nil
}

// finishEOF decides whether a stream that ended without [DONE] is complete:
// it is when a finish_reason arrived (llama.cpp, some proxies).
func (st *streamState) finishEOF(started bool) (*Response, error) {
	if st.finish != "" {
		return st.response(), nil
	}
	err := fmt.Errorf("%w: EOF before finish_reason", ErrStreamIncomplete)
	if !started {
		return nil, &retryable{err: err}
	}
	return nil, err
}

func (st *streamState) response() *Response {
	msg := Message{Role: RoleAssistant, Content: st.text.String(), Reasoning: st.reasoning.String()}
	msg.ToolCalls = st.calls.result()
	return &Response{Message: msg, FinishReason: finishReason(st.finish, msg), Usage: st.usage}
}

// finishReason normalizes: "tool_calls" whenever there are tool calls.
func finishReason(reported string, msg Message) string {
	if len(msg.ToolCalls) > 0 {
		return "tool_calls"
	}
	if reported == "" {
		return "stop"
	}
	return reported
}

// lineReader reads lines of at most max bytes, without the line ending
// (\n or \r\n). n counts every byte read, to tell "nothing received" apart.
type lineReader struct {
	r   *bufio.Reader
	max int
	buf []byte
	n   int
}

func (l *lineReader) next() ([]byte, error) {
	l.buf = l.buf[:0]
	for {
		frag, err := l.r.ReadSlice('\n')
		l.n += len(frag)
		if len(l.buf)+len(frag) > l.max {
			return nil, fmt.Errorf("%w: SSE line exceeds %d bytes", ErrTooLarge, l.max)
		}
		l.buf = append(l.buf, frag...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil && (len(l.buf) == 0 || !errors.Is(err, io.EOF)) {
			return nil, err
		}
		return bytes.TrimRight(l.buf, "\r\n"), nil
	}
}
