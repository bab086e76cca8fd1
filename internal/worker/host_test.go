package worker

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-gateway/hermes/internal/agent"
	"github.com/hermes-gateway/hermes/internal/model"
	"github.com/hermes-gateway/hermes/internal/tools"
)

// fakeHost records every callback in order. approve and ask, when set,
// decide requests (default: deny, empty answer); messageErr fails Message
// for messages of that role.
type fakeHost struct {
	approve    func(ctx context.Context, req tools.ApprovalRequest) (bool, error)
	ask        func(ctx context.Context, q tools.Question) (string, error)
	messageErr map[string]error

	mu        sync.Mutex
	events    []string                // "kind:detail", in call order; guarded by mu
	msgs      []model.Message         // guarded by mu
	approvals []tools.ApprovalRequest // guarded by mu
	questions []tools.Question        // guarded by mu
	started   []int                   // guarded by mu
	exited    []int                   // guarded by mu
	ui        map[string]json.RawMessage
	changed   chan struct{} // closed and replaced on every callback; guarded by mu
}

func newFakeHost() *fakeHost { return &fakeHost{changed: make(chan struct{})} }

func (h *fakeHost) note(event string, f func()) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.events = append(h.events, event)
	if f != nil {
		f()
	}
	close(h.changed)
	h.changed = make(chan struct{})
}

func (h *fakeHost) Message(_ context.Context, m model.Message) error {
	h.note("message:"+m.Role, func() { h.msgs = append(h.msgs, m) })
	return h.messageErr[m.Role]
}
func (h *fakeHost) Text(d string)      { h.note("text:"+d, nil) }
func (h *fakeHost) Reasoning(d string) { h.note("reasoning:"+d, nil) }
func (h *fakeHost) ToolStart(id, name string, args json.RawMessage) {
	h.note("tool_start:"+name, nil)
}
func (h *fakeHost) ToolComplete(id, name string, res tools.Result) {
	h.note(fmt.Sprintf("tool_complete:%s:%v", name, res.IsError), nil)
}
func (h *fakeHost) UIEvent(kind string, payload any) {
	h.note("ui:"+kind, func() {
		if h.ui == nil {
			h.ui = map[string]json.RawMessage{}
		}
		h.ui[kind], _ = payload.(json.RawMessage)
	})
}
func (h *fakeHost) Started(pid int) { h.note("started", func() { h.started = append(h.started, pid) }) }
func (h *fakeHost) Exited(pid int)  { h.note("exited", func() { h.exited = append(h.exited, pid) }) }

func (h *fakeHost) Approve(ctx context.Context, req tools.ApprovalRequest) (bool, error) {
	h.note("approve:"+req.Pattern, func() { h.approvals = append(h.approvals, req) })
	if h.approve == nil {
		return false, nil
	}
	return h.approve(ctx, req)
}

func (h *fakeHost) Ask(ctx context.Context, q tools.Question) (string, error) {
	h.note("ask:"+q.Question, func() { h.questions = append(h.questions, q) })
	if h.ask == nil {
		return "", nil
	}
	return h.ask(ctx, q)
}

// await blocks until cond holds (checked under the lock) or ctx ends.
func (h *fakeHost) await(ctx context.Context, t *testing.T, what string, cond func() bool) {
	t.Helper()
	for {
		h.mu.Lock()
		ok, ch := cond(), h.changed
		h.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("waiting for %s: %v; events %v", what, ctx.Err(), h.snapshot())
		case <-ch:
		}
	}
}

func (h *fakeHost) snapshot() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.events...)
}

func (h *fakeHost) messages() []model.Message {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]model.Message(nil), h.msgs...)
}

// serveInProcess runs Serve on a goroutine, connected to the daemon side
// (the same proxy Run uses) by io.Pipes, and returns the turn's result.
func serveInProcess(ctx context.Context, t *testing.T, spec Spec, host Host) agent.Result {
	t.Helper()
	inR, inW := io.Pipe()   // daemon → worker stdin
	outR, outW := io.Pipe() // worker stdout → daemon
	serveErr := make(chan error, 1)
	go func() {
		err := Serve(context.Background(), inR, outW)
		_ = outW.Close()
		serveErr <- err
	}()
	p := startProxy(ctx, host, inW, outR)
	end := p.converse(ctx, spec, 5*time.Second)
	p.stop()         // closes inW: Serve's reader ends
	_ = outR.Close() // as a kill would: a worker still writing fails instead of blocking
	if err := <-serveErr; err != nil && end.ok && !end.kill {
		t.Errorf("Serve: %v", err)
	}
	p.joinReader()
	if !end.ok {
		t.Fatalf("worker ended without a result")
	}
	return end.res
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func hasEvent(events []string, prefix string) bool {
	for _, e := range events {
		if strings.HasPrefix(e, prefix) {
			return true
		}
	}
	return false
}
