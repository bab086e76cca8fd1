package tools

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
)

// fakeApprover answers every request with allow and records them; check,
// when set, runs inside Approve (before consent is given).
type fakeApprover struct {
	allow bool
	check func()
	mu    sync.Mutex
	reqs  []ApprovalRequest
}

func (a *fakeApprover) Approve(ctx context.Context, req ApprovalRequest) (bool, error) {
	a.mu.Lock()
	a.reqs = append(a.reqs, req)
	a.mu.Unlock()
	if a.check != nil {
		a.check()
	}
	return a.allow, nil
}

func (a *fakeApprover) requests() []ApprovalRequest {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]ApprovalRequest{}, a.reqs...)
}

// failApprover fails the test when asked.
type failApprover struct{ t *testing.T }

func (a failApprover) Approve(ctx context.Context, req ApprovalRequest) (bool, error) {
	a.t.Errorf("Approver asked for %+v; it must not be", req)
	return true, nil
}

// pidRecorder is a ProcessTracker that reports started pids on a channel.
type pidRecorder struct {
	started chan int
	mu      sync.Mutex
	exited  []int
}

func (p *pidRecorder) Started(pid int) { p.started <- pid }
func (p *pidRecorder) Exited(pid int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.exited = append(p.exited, pid)
}

// run calls tool name with args (marshalled) and fails on a Go error.
func run(t *testing.T, env *Env, name string, args any) Result {
	t.Helper()
	res, err := runErr(t, env, name, args)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

func runErr(t *testing.T, env *Env, name string, args any) (Result, error) {
	t.Helper()
	tool, ok := ByName(name)
	if !ok {
		t.Fatalf("no tool %q", name)
	}
	raw, ok := args.(string)
	if !ok {
		b, err := json.Marshal(args)
		if err != nil {
			t.Fatal(err)
		}
		raw = string(b)
	}
	return tool.Run(context.Background(), env, json.RawMessage(raw))
}
