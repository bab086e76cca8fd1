package bench

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"github.com/hermes-gateway/hermes/internal/client"
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
// asks for `echo hi`, the command run in the tool sandbox (sandbox.mode
// auto), a second model call, the final text, settle — until
// message.complete reaches the viewer. Split figures: create, submit
// (admission receipt), turn (receipt to message.complete).
func BenchmarkTurnCycle(b *testing.B) {
	r := newCycleRig(b, "")
	for i := range warmup / 4 {
		r.op("warm-" + strconv.Itoa(i))
	}
	r.reset()
	for i := 0; b.Loop(); i++ {
		r.op("op-" + strconv.Itoa(i))
	}
	r.report("")
}

// BenchmarkTurnCycleSandbox runs the same cycle on two gateways, one with
// sandbox.mode off and one with the default (auto: namespaces + Landlock +
// seccomp), interleaved op by op, and reports both and their ratio
// (goal: sandboxed/bare cycle p50 ≤ 1.2).
func BenchmarkTurnCycleSandbox(b *testing.B) {
	bare := newCycleRig(b, "sandbox: {mode: off}\n")
	boxed := newCycleRig(b, "")
	for i := range warmup / 4 {
		bare.op("warm-" + strconv.Itoa(i))
		boxed.op("warm-" + strconv.Itoa(i))
	}
	bare.reset()
	boxed.reset()
	for i := 0; b.Loop(); i++ {
		bare.op("op-" + strconv.Itoa(i))
		boxed.op("op-" + strconv.Itoa(i))
	}
	bare.report("bare-")
	boxed.report("sandboxed-")
	b.ReportMetric(ratio(boxed.total.q(0.50), bare.total.q(0.50)), "sandboxed/bare-cycle-p50")
	b.ReportMetric(ratio(boxed.turn.q(0.50), bare.turn.q(0.50)), "sandboxed/bare-turn-p50")
}

// cycleRig is one gateway with a connected viewer for the cycle benchmarks.
type cycleRig struct {
	b                          *testing.B
	c                          *client.Client
	cwd                        string
	total, create, admit, turn latencies
}

func newCycleRig(b *testing.B, extraConfig string) *cycleRig {
	m := cycleModel(b)
	home := benchHome(b)
	writeConfig(b, home, m.URL(), extraConfig)
	g := startGateway(b, home)
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	c, err := g.dial(ctx)
	cancel()
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = c.Close() })
	return &cycleRig{b: b, c: c, cwd: benchHome(b)}
}

func (r *cycleRig) reset() { r.total, r.create, r.admit, r.turn = nil, nil, nil, nil }

func (r *cycleRig) report(prefix string) {
	r.total.report(r.b, prefix+"cycle")
	r.create.report(r.b, prefix+"create")
	r.admit.report(r.b, prefix+"submit")
	r.turn.report(r.b, prefix+"turn")
}

func (r *cycleRig) op(id string) {
	b, c := r.b, r.c
	ctx, cancel := callCtx()
	defer cancel()
	toolsets := []string{"terminal"}
	t0 := time.Now()
	snap, err := c.CreateSession(ctx, protocol.SessionCreateParams{RequestID: &id, Cwd: &r.cwd, Toolsets: &toolsets})
	if err != nil {
		b.Fatal(err)
	}
	t1 := time.Now()
	rc, err := submit(ctx, c, snap.SessionID, "s-"+id, "say hi with the terminal")
	if err != nil {
		b.Fatal(err)
	}
	t2 := time.Now()
	ev, err := c.AwaitEvent(ctx, func(e protocol.Event) bool {
		return e.Type == protocol.EventMessageComplete && e.AdmissionID == rc.AdmissionID
	})
	if err != nil {
		b.Fatal(err)
	}
	t3 := time.Now()
	var done struct{ Outcome, Text string }
	if err := json.Unmarshal(ev.Payload, &done); err != nil || done.Outcome != protocol.OutcomeCompleted {
		b.Fatalf("turn ended %s (%q, %v)", done.Outcome, done.Text, err)
	}
	r.create.add(t1.Sub(t0))
	r.admit.add(t2.Sub(t1))
	r.turn.add(t3.Sub(t2))
	r.total.add(t3.Sub(t0))
}
