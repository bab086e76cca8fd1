package acp

import (
	"encoding/json"
	"errors"

	"github.com/hermes-gateway/hermes/internal/protocol"
)

// maxBuffered bounds the events kept for a turn whose admission id is not
// known yet (between prompt.submit and its reply).
const maxBuffered = 10000

// turn is the prompt running in one ACP session. Its fields are touched
// only on the pump goroutine; result is the hand-over to the handler.
type turn struct {
	admission  string           // "" until the submit reply
	buffer     []protocol.Event // events seen before the admission was known
	generation int64            // from message.start; 0 = not started
	lastTool   string           // tool id of the latest tool.start (approvals name it)
	cancelled  bool             // session/cancel arrived
	result     chan turnEnd     // buffered 1; receives exactly one end
}

type turnEnd struct {
	outcome, detail string
	err             error
}

// pump reads one connection's events and owns the turns of its sessions.
type pump struct {
	a     *agent
	g     *gatewayConn
	ctl   chan func()
	done  chan struct{} // closed when run returned
	turns map[string]*turn
}

func newPump(a *agent, g *gatewayConn) *pump {
	return &pump{a: a, g: g, ctl: make(chan func()), done: make(chan struct{}), turns: map[string]*turn{}}
}

// run is the pump goroutine: events and control closures, in order.
func (p *pump) run() {
	defer close(p.done)
	defer p.failAll(errors.New("the gateway connection ended"))
	events := p.g.c.Events()
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				return
			}
			p.event(ev)
		case f := <-p.ctl:
			f()
		case <-p.a.ctx.Done():
			return
		}
	}
}

func (p *pump) ended() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// do runs f on the pump goroutine; false when the pump has ended.
func (p *pump) do(f func()) bool {
	ran := make(chan struct{})
	select {
	case p.ctl <- func() { f(); close(ran) }:
		<-ran
		return true
	case <-p.done:
		return false
	}
}

func (p *pump) failAll(err error) {
	for sid, t := range p.turns {
		t.result <- turnEnd{err: err}
		delete(p.turns, sid)
	}
}

// begin registers a turn for sid; one prompt at a time per session.
func (p *pump) begin(sid string) (*turn, error) {
	t := &turn{result: make(chan turnEnd, 1)}
	var err error
	if !p.do(func() {
		if p.turns[sid] != nil {
			err = errors.New("a prompt is already running in this session")
			return
		}
		p.turns[sid] = t
	}) {
		return nil, errors.New("the gateway connection ended")
	}
	return t, err
}

// end drops t (its submit failed).
func (p *pump) end(sid string, t *turn) {
	p.do(func() {
		if p.turns[sid] == t {
			delete(p.turns, sid)
		}
	})
}

// admitted names t's admission and applies the events buffered for it.
func (p *pump) admitted(sid string, t *turn, admission string) {
	p.do(func() {
		if p.turns[sid] != t {
			return
		}
		t.admission = admission
		buf := t.buffer
		t.buffer = nil
		for _, ev := range buf {
			p.event(ev)
		}
		if t.cancelled {
			p.stop(sid, t)
		}
	})
}

// cancel marks the session's turn cancelled and stops it.
func (p *pump) cancel(sid string) {
	p.do(func() {
		if t := p.turns[sid]; t != nil && !t.cancelled {
			t.cancelled = true
			if t.admission != "" {
				p.stop(sid, t)
			}
		}
	})
}

// stop interrupts a started turn, or cancels a queued admission.
func (p *pump) stop(sid string, t *turn) {
	c, adm, gen := p.g.c, t.admission, t.generation
	p.background(func() {
		if gen == 0 {
			// Still queued. If it started meanwhile, cancel fails and
			// message.start interrupts it (t.cancelled is set).
			_, _ = c.Cancel(p.a.ctx, protocol.AdmissionParams{SessionID: sid, AdmissionID: adm})
			return
		}
		_, _ = c.InterruptSession(p.a.ctx, protocol.SessionInterruptParams{SessionID: sid, ExecutionGeneration: gen})
	})
}

// event routes one gateway event to the turn of its session.
func (p *pump) event(ev protocol.Event) {
	t := p.turns[ev.SessionID]
	if t == nil {
		return
	}
	if t.admission == "" {
		if len(t.buffer) < maxBuffered {
			t.buffer = append(t.buffer, ev)
		}
		return
	}
	if ev.Type == protocol.EventSessionUnknown {
		var u protocol.SessionUnknownPayload
		if json.Unmarshal(ev.Payload, &u) == nil && u.AdmissionID == t.admission {
			p.finish(ev.SessionID, t, turnEnd{outcome: "unknown", detail: "the gateway stopped during the turn"})
		}
		return
	}
	if ev.AdmissionID == t.admission {
		p.apply(ev.SessionID, t, ev)
	}
}

func (p *pump) finish(sid string, t *turn, end turnEnd) {
	t.result <- end
	delete(p.turns, sid)
}

// apply maps an event of the turn's admission to ACP.
func (p *pump) apply(sid string, t *turn, ev protocol.Event) {
	switch ev.Type {
	case protocol.EventMessageStart:
		t.generation = ev.ExecutionGeneration
		if t.cancelled {
			p.stop(sid, t)
		}
	case protocol.EventToolStart:
		var s protocol.ToolStartPayload
		if json.Unmarshal(ev.Payload, &s) == nil {
			t.lastTool = s.ToolID
		}
	case protocol.EventApprovalRequest:
		var r protocol.ApprovalRequestPayload
		if json.Unmarshal(ev.Payload, &r) == nil {
			p.ask(sid, t.lastTool, r)
		}
		return
	case protocol.EventClarifyRequest:
		var r protocol.ClarifyRequestPayload
		if json.Unmarshal(ev.Payload, &r) == nil {
			p.clarify(sid, t.lastTool, r)
		}
		return
	case protocol.EventMessageComplete:
		var c protocol.MessageCompletePayload
		if json.Unmarshal(ev.Payload, &c) == nil {
			p.finish(sid, t, turnEnd{outcome: c.Outcome, detail: c.Error})
		}
		return
	}
	for _, u := range update(ev) {
		p.a.p.notify("session/update", map[string]any{"sessionId": sid, "update": u})
	}
}
