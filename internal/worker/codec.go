package worker

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/hermes-gateway/hermes/internal/model"
)

// Frame kinds. The worker sends the first group; the daemon sends cancel and
// answer.
const (
	kindMessage      = "message"       // id; message, reasoning — answered (error = fail the turn)
	kindText         = "text"          // delta
	kindReasoning    = "reasoning"     // delta
	kindToolStart    = "tool_start"    // call_id, name, args
	kindToolComplete = "tool_complete" // call_id, name, output, is_error
	kindApprove      = "approve"       // id; approval — answered (allowed)
	kindAsk          = "ask"           // id; question — answered (answer)
	kindUI           = "ui"            // ui_kind, payload
	kindStarted      = "started"       // pid
	kindExited       = "exited"        // pid
	kindResult       = "result"        // result; the last frame of a worker
	kindCancel       = "cancel"        // daemon → worker: interrupt the turn
	kindAnswer       = "answer"        // daemon → worker: id; allowed, answer, error
)

// Limits on one line. The spec carries the whole history, so the worker
// accepts a large first line; the daemon bounds what a worker may send.
const (
	maxWorkerFrame = 32 << 20  // bytes of one line from the worker
	maxDaemonFrame = 512 << 20 // bytes of one line from the daemon (the spec)
)

// errProtocol marks a line that is not a valid frame for its direction.
var errProtocol = errors.New("worker protocol error")

// frame is one line of the protocol. Which fields are set depends on Kind
// (see the kind constants); the others are zero and omitted.
type frame struct {
	ID   uint64 `json:"id,omitempty"`
	Kind string `json:"kind"`

	Message   *model.Message `json:"message,omitempty"`
	Reasoning string         `json:"reasoning,omitempty"` // of Message: its JSON form drops it
	Delta     string         `json:"delta,omitempty"`

	CallID  string          `json:"call_id,omitempty"`
	Name    string          `json:"name,omitempty"`
	Args    json.RawMessage `json:"args,omitempty"`
	Output  string          `json:"output,omitempty"`
	IsError bool            `json:"is_error,omitempty"`

	Approval *approval       `json:"approval,omitempty"`
	Question *question       `json:"question,omitempty"`
	UIKind   string          `json:"ui_kind,omitempty"`
	Payload  json.RawMessage `json:"payload,omitempty"`
	PID      int             `json:"pid,omitempty"`
	Result   *result         `json:"result,omitempty"`

	Allowed bool   `json:"allowed,omitempty"`
	Answer  string `json:"answer,omitempty"`
	Error   string `json:"error,omitempty"`
}

// approval is tools.ApprovalRequest on the wire.
type approval struct {
	Command     string `json:"command"`
	Description string `json:"description"`
	Pattern     string `json:"pattern"`
}

// question is tools.Question on the wire.
type question struct {
	Question    string   `json:"question"`
	Choices     []string `json:"choices,omitempty"`
	MultiSelect bool     `json:"multi_select,omitempty"`
}

// result is agent.Result on the wire; Error is Err's text.
type result struct {
	Text            string      `json:"text"`
	Usage           model.Usage `json:"usage"`
	Outcome         string      `json:"outcome"`
	Error           string      `json:"error,omitempty"`
	Rounds          int         `json:"rounds"`
	MaxTurnsReached bool        `json:"max_turns_reached,omitempty"`
}

// fromWorker reports whether kind may be sent by a worker.
var fromWorker = map[string]bool{
	kindMessage: true, kindText: true, kindReasoning: true, kindToolStart: true,
	kindToolComplete: true, kindApprove: true, kindAsk: true, kindUI: true,
	kindStarted: true, kindExited: true, kindResult: true,
}

// validWorkerFrame checks a frame the daemon received: a known kind, an id
// on requests, and the body the kind needs.
func validWorkerFrame(f *frame) error {
	if !fromWorker[f.Kind] {
		return fmt.Errorf("%w: unexpected kind %q", errProtocol, f.Kind)
	}
	missing := ""
	switch f.Kind {
	case kindMessage:
		missing = need(f.ID != 0 && f.Message != nil, "id and message")
	case kindApprove:
		missing = need(f.ID != 0 && f.Approval != nil, "id and approval")
	case kindAsk:
		missing = need(f.ID != 0 && f.Question != nil, "id and question")
	case kindResult:
		missing = need(f.Result != nil && f.Result.Outcome != "", "result with an outcome")
	case kindStarted, kindExited:
		missing = need(f.PID > 0, "pid")
	case kindToolStart, kindToolComplete:
		missing = need(f.CallID != "", "call_id")
	}
	if missing != "" {
		return fmt.Errorf("%w: %s frame without %s", errProtocol, f.Kind, missing)
	}
	return nil
}

// validDaemonFrame checks a frame the worker received.
func validDaemonFrame(f *frame) error {
	switch {
	case f.Kind == kindCancel:
		return nil
	case f.Kind == kindAnswer && f.ID != 0:
		return nil
	case f.Kind == kindAnswer:
		return fmt.Errorf("%w: answer without id", errProtocol)
	}
	return fmt.Errorf("%w: unexpected kind %q", errProtocol, f.Kind)
}

func need(ok bool, what string) string {
	if ok {
		return ""
	}
	return what
}

// decodeFrame parses one line and checks it with valid.
func decodeFrame(line []byte, valid func(*frame) error) (frame, error) {
	var f frame
	if err := json.Unmarshal(line, &f); err != nil {
		return frame{}, fmt.Errorf("%w: %v", errProtocol, err)
	}
	if err := valid(&f); err != nil {
		return frame{}, err
	}
	return f, nil
}

// encoder writes one JSON value per line; it is safe for concurrent use.
type encoder struct {
	mu sync.Mutex
	w  io.Writer // guarded by mu
}

func newEncoder(w io.Writer) *encoder { return &encoder{w: w} }

// write sends v as one line. A write error means the peer is gone.
func (e *encoder) write(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode frame: %w", err)
	}
	b = append(b, '\n')
	e.mu.Lock()
	defer e.mu.Unlock()
	_, err = e.w.Write(b)
	return err
}

// lineReader reads newline-terminated lines of at most max bytes.
type lineReader struct {
	r   *bufio.Reader
	max int
}

func newLineReader(r io.Reader, max int) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 64<<10), max: max}
}

// next returns the next line without its newline. A final line without a
// newline is returned as a line; then io.EOF.
func (l *lineReader) next() ([]byte, error) {
	var line []byte
	for {
		chunk, err := l.r.ReadSlice('\n')
		if len(line)+len(chunk) > l.max {
			return nil, fmt.Errorf("%w: line longer than %d bytes", errProtocol, l.max)
		}
		line = append(line, chunk...)
		switch {
		case err == nil:
			return line[:len(line)-1], nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err == io.EOF && len(line) > 0:
			return line, nil
		}
		return nil, err
	}
}
