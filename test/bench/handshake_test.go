package bench

import (
	"strconv"
	"testing"
	"time"

	"github.com/hermes-gateway/hermes/internal/client"
	"github.com/hermes-gateway/hermes/internal/protocol"
)

// BenchmarkSessionCreate: one op = one session.create over one WebSocket
// (distinct request_ids, empty toolsets, a fixed cwd): the policy build, one
// durable transaction (session row, route, receipt) and the attach.
func BenchmarkSessionCreate(b *testing.B) {
	m, _ := heldModel(b)
	home := benchHome(b)
	writeConfig(b, home, m.URL(), "")
	g := startGateway(b, home)
	c := g.connect(b)
	cwd := benchHome(b)
	toolsets := []string{}
	create := func(id string) time.Duration {
		ctx, cancel := callCtx()
		defer cancel()
		start := time.Now()
		if _, err := c.CreateSession(ctx, protocol.SessionCreateParams{RequestID: &id, Cwd: &cwd, Toolsets: &toolsets}); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	for i := range warmup {
		create("warm-" + strconv.Itoa(i))
	}
	var lat latencies
	for i := 0; b.Loop(); i++ {
		lat.add(create("op-" + strconv.Itoa(i)))
	}
	lat.report(b, "create")
}

// BenchmarkTicketUpgradePing: one op = session-ticket over the control
// socket, WebSocket upgrade with the ticket (client.Dial waits for
// gateway.ready), one ping, close. Split figures show where the time goes.
func BenchmarkTicketUpgradePing(b *testing.B) {
	m, _ := heldModel(b)
	home := benchHome(b)
	writeConfig(b, home, m.URL(), "")
	g := startGateway(b, home)
	var total, ticket, dial, ping latencies
	op := func() {
		ctx, cancel := callCtx()
		defer cancel()
		t0 := time.Now()
		t, err := g.ticket(ctx)
		if err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		c, err := client.Dial(ctx, g.id.APIOrigin, client.Options{Ticket: t})
		if err != nil {
			b.Fatal(err)
		}
		t2 := time.Now()
		if err := c.Ping(ctx); err != nil {
			b.Fatal(err)
		}
		t3 := time.Now()
		if err := c.Close(); err != nil {
			b.Fatal(err)
		}
		t4 := time.Now()
		ticket.add(t1.Sub(t0))
		dial.add(t2.Sub(t1))
		ping.add(t3.Sub(t2))
		total.add(t4.Sub(t0))
	}
	for range warmup {
		op()
	}
	total, ticket, dial, ping = nil, nil, nil, nil
	for b.Loop() {
		op()
	}
	total.report(b, "total")
	ticket.report(b, "ticket")
	dial.report(b, "upgrade")
	ping.report(b, "ping")
}
