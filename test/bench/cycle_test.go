package bench

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"github.com/hermes-gateway/hermes/internal/modeltest"
	"github.com/hermes-gateway/hermes/internal/protocol"
)

// cycleModel answers a request whose last message is a tool result with a
// final text, and anything else with a terminal call `echo hi`.
func cycleModel(b testing.TB) *modeltest.Server {
	m := modeltest.New(b)
	m.Handle(func(r *modeltest.Request) modeltest.Reply {
		if n := len(r.Messages); n > 0 && r.Messages[n-1].Role == "tool" {
			return modeltest.Text("done: hi")
		}
		return modeltest.ToolCall("terminal", `{"command":"echo hi"}`)
	})
	return m
}

// BenchmarkTurnCycle: one op = session.create (toolsets [terminal]) +
// prompt.submit + the whole turn against the fake model: a model call that
// asks for `echo hi`, the command run in its own process group, a second
// model call, the final text, settle — until message.complete reaches the
// viewer. Split figures: create, submit (admission receipt), turn (receipt
// to message.complete).
func BenchmarkTurnCycle(b *testing.B) {
	m := cycleModel(b)
	home := benchHome(b)
	writeConfig(b, home, m.URL(), "")
	g := startGateway(b, home)
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	c, err := g.dial(ctx)
	cancel()
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = c.Close() })
	cwd := benchHome(b)
	toolsets := []string{"terminal"}
	var total, create, admit, turn latencies
	op := func(id string) {
		ctx, cancel := callCtx()
		defer cancel()
		t0 := time.Now()
		snap, err := c.CreateSession(ctx, protocol.SessionCreateParams{RequestID: &id, Cwd: &cwd, Toolsets: &toolsets})
		if err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		r, err := submit(ctx, c, snap.SessionID, "s-"+id, "say hi with the terminal")
		if err != nil {
			b.Fatal(err)
		}
		t2 := time.Now()
		ev, err := c.AwaitEvent(ctx, func(e protocol.Event) bool {
			return e.Type == protocol.EventMessageComplete && e.AdmissionID == r.AdmissionID
		})
		if err != nil {
			b.Fatal(err)
		}
		t3 := time.Now()
		var done struct{ Outcome, Text string }
		if err := json.Unmarshal(ev.Payload, &done); err != nil || done.Outcome != protocol.OutcomeCompleted {
			b.Fatalf("turn ended %s (%q, %v)", done.Outcome, done.Text, err)
		}
		create.add(t1.Sub(t0))
		admit.add(t2.Sub(t1))
		turn.add(t3.Sub(t2))
		total.add(t3.Sub(t0))
	}
	for i := range warmup / 4 {
		op("warm-" + strconv.Itoa(i))
	}
	total, create, admit, turn = nil, nil, nil, nil
	for i := 0; b.Loop(); i++ {
		op("op-" + strconv.Itoa(i))
	}
	total.report(b, "cycle")
	create.report(b, "create")
	admit.report(b, "submit")
	turn.report(b, "turn")
}
