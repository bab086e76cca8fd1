package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/hermes-gateway/hermes/internal/model"
	"github.com/hermes-gateway/hermes/internal/tools"
)

// remote is the worker's view of the daemon: it implements agent.Recorder
// and every tools.Env callback by writing frames, and matches answers to
// pending requests. The turn's goroutine calls it; readLoop feeds it.
type remote struct {
	enc    *encoder
	cancel context.CancelCauseFunc // interrupts the turn
	gone   chan struct{}           // closed when readLoop ends: no answer will come

	mu      sync.Mutex
	nextID  uint64                // guarded by mu
	pending map[uint64]chan frame // request id → its answer (buffered 1); guarded by mu
}

func newRemote(enc *encoder, cancel context.CancelCauseFunc) *remote {
	return &remote{enc: enc, cancel: cancel, gone: make(chan struct{}), pending: map[uint64]chan frame{}}
}

// readLoop delivers answers and cancel until stdin ends or carries garbage;
// then the turn is interrupted (nobody is left to report to) and pending
// requests fail.
func (r *remote) readLoop(lines *lineReader) {
	defer close(r.gone)
	for {
		line, err := lines.next()
		if err != nil {
			r.cancel(fmt.Errorf("%w: %v", errDaemonGone, err))
			return
		}
		f, err := decodeFrame(line, validDaemonFrame)
		if err != nil {
			r.cancel(fmt.Errorf("%w: %v", errDaemonGone, err))
			return
		}
		if f.Kind == kindCancel {
			r.cancel(errors.New("interrupted by the daemon"))
			continue
		}
		r.deliver(f)
	}
}

func (r *remote) deliver(f frame) {
	r.mu.Lock()
	ch := r.pending[f.ID]
	delete(r.pending, f.ID)
	r.mu.Unlock()
	if ch != nil {
		ch <- f // buffered; an answer to a withdrawn request is dropped above
	}
}

// call sends a request and waits for its answer, ctx, or the daemon's end.
// An answer carrying an error is returned as that error.
func (r *remote) call(ctx context.Context, f frame) (frame, error) {
	ch := make(chan frame, 1)
	r.mu.Lock()
	r.nextID++
	f.ID = r.nextID
	r.pending[f.ID] = ch
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		delete(r.pending, f.ID)
		r.mu.Unlock()
	}()
	if err := r.enc.write(f); err != nil {
		return frame{}, fmt.Errorf("%w: %v", errDaemonGone, err)
	}
	select {
	case a := <-ch:
		if a.Error != "" {
			return frame{}, errors.New(a.Error)
		}
		return a, nil
	case <-ctx.Done():
		return frame{}, ctx.Err()
	case <-r.gone:
		return frame{}, errDaemonGone
	}
}

// notify sends a frame nobody answers; a failed write means the daemon is
// gone, which interrupts the turn.
func (r *remote) notify(f frame) {
	if err := r.enc.write(f); err != nil {
		r.cancel(fmt.Errorf("%w: %v", errDaemonGone, err))
	}
}

// Message waits until the daemon has recorded m (or failed to).
func (r *remote) Message(ctx context.Context, m model.Message) error {
	_, err := r.call(ctx, frame{Kind: kindMessage, Message: &m, Reasoning: m.Reasoning})
	return err
}

func (r *remote) Text(delta string)      { r.notify(frame{Kind: kindText, Delta: delta}) }
func (r *remote) Reasoning(delta string) { r.notify(frame{Kind: kindReasoning, Delta: delta}) }

func (r *remote) ToolStart(callID, name string, args json.RawMessage) {
	if !json.Valid(args) {
		args, _ = json.Marshal(string(args))
	}
	r.notify(frame{Kind: kindToolStart, CallID: callID, Name: name, Args: args})
}

func (r *remote) ToolComplete(callID, name string, res tools.Result) {
	r.notify(frame{Kind: kindToolComplete, CallID: callID, Name: name, Output: res.Output, IsError: res.IsError})
}

// Approve asks the daemon, which applies yolo, the allowlist and the viewers.
func (r *remote) Approve(ctx context.Context, req tools.ApprovalRequest) (bool, error) {
	a, err := r.call(ctx, frame{Kind: kindApprove, Approval: &approval{
		Command: req.Command, Description: req.Description, Pattern: req.Pattern}})
	if err != nil {
		return false, err
	}
	return a.Allowed, nil
}

// Ask asks the daemon's viewers a clarify question.
func (r *remote) Ask(ctx context.Context, q tools.Question) (string, error) {
	a, err := r.call(ctx, frame{Kind: kindAsk, Question: &question{
		Question: q.Question, Choices: q.Choices, MultiSelect: q.MultiSelect}})
	if err != nil {
		return "", err
	}
	return a.Answer, nil
}

func (r *remote) UIEvent(kind string, payload any) {
	r.notify(frame{Kind: kindUI, UIKind: kind, Payload: rawPayload(payload)})
}

func (r *remote) Started(pid int) { r.notify(frame{Kind: kindStarted, PID: pid}) }
func (r *remote) Exited(pid int)  { r.notify(frame{Kind: kindExited, PID: pid}) }
