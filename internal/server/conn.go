package server

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/coder/websocket"

	"github.com/hermes-gateway/hermes/internal/auth"
	"github.com/hermes-gateway/hermes/internal/events"
	"github.com/hermes-gateway/hermes/internal/protocol"
	"github.com/hermes-gateway/hermes/internal/rpc"
)

// conn is one authenticated WebSocket: its principal (from the gate), the
// sessions it attached, and one event pump per attachment.
type conn struct {
	s   *Server
	p   auth.Principal
	rpc *rpc.Conn
	ws  *websocket.Conn
	ctx context.Context // the connection's lifetime; cancelled when it closes

	mu   sync.Mutex
	subs map[string]*events.Subscription // session id → this connection's subscription; guarded by mu
	wg   sync.WaitGroup                  // event pumps
}

func (s *Server) serveConn(ctx context.Context, ws *websocket.Conn, p auth.Principal) {
	c := &conn{s: s, p: p, ws: ws, subs: map[string]*events.Subscription{}}
	c.rpc = rpc.NewConn(rpc.WebSocketStream(ws), rpc.Options{Mux: c.mux(), Logger: s.log, WriteTimeout: s.cfg.WriteTimeout})
	s.mu.Lock()
	s.conns[c] = struct{}{}
	s.wg.Add(1)
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.conns, c)
		s.mu.Unlock()
		s.wg.Done()
	}()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	c.ctx = ctx
	ready, _ := json.Marshal(protocol.ReadyPayload{Protocol: protocol.Subprotocol})
	if err := c.rpc.Notify(ctx, protocol.MethodEvent, protocol.Event{Type: protocol.EventGatewayReady, Payload: ready}); err != nil {
		_ = ws.CloseNow()
		return
	}
	_ = c.rpc.Run(ctx)
	c.detachAll()
	cancel()
	c.wg.Wait()
	_ = c.rpc.Close()
}

func (s *Server) closeAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.conns {
		_ = c.ws.Close(websocket.StatusGoingAway, "gateway stopping")
	}
}

// attach registers sub as this connection's subscription to sid (replacing
// an older one) and starts its pump.
func (c *conn) attach(ctx context.Context, sid string, sub *events.Subscription) {
	c.mu.Lock()
	old := c.subs[sid]
	c.subs[sid] = sub
	c.wg.Add(1)
	c.mu.Unlock()
	if old != nil {
		old.Close()
	}
	go func() {
		defer c.wg.Done()
		c.pump(ctx, sid, sub)
	}()
}

// pump forwards a subscription's events to the socket until it ends.
func (c *conn) pump(ctx context.Context, sid string, sub *events.Subscription) {
	for {
		evs, err := sub.Next(ctx)
		for _, e := range evs {
			if c.rpc.Notify(ctx, protocol.MethodEvent, e) != nil {
				sub.Close()
				return
			}
		}
		if err != nil {
			c.mu.Lock()
			if c.subs[sid] == sub {
				delete(c.subs, sid)
			}
			c.mu.Unlock()
			return
		}
	}
}

func (c *conn) attached(sid string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.subs[sid] != nil
}

func (c *conn) detach(sid, subID string) bool {
	c.mu.Lock()
	sub := c.subs[sid]
	ok := sub != nil && sub.ID() == subID
	if ok {
		delete(c.subs, sid)
	}
	c.mu.Unlock()
	if ok {
		sub.Close()
	}
	return ok
}

func (c *conn) detachAll() {
	c.mu.Lock()
	subs := c.subs
	c.subs = map[string]*events.Subscription{}
	c.mu.Unlock()
	for _, sub := range subs {
		sub.Close()
	}
}

// mux binds every handler to this connection.
func (c *conn) mux() *rpc.Mux {
	m := rpc.NewMux()
	for name, h := range handlers {
		m.Handle(name, bind(c, h))
	}
	return m
}

// handler is a method of the wire, given its connection.
type handler func(ctx context.Context, c *conn, params json.RawMessage) (any, error)

func bind(c *conn, h handler) rpc.HandlerFunc {
	return func(ctx context.Context, params json.RawMessage) (any, error) {
		return h(ctx, c, params)
	}
}

// handlers is the method table; each handler lives in the file of its noun.
var handlers = map[string]handler{}

func register(method string, h handler) { handlers[method] = h }

// decode is strict params decoding (rpc.DecodeParams) for a handler.
func decode[T any](params json.RawMessage) (T, error) {
	return rpc.DecodeParams[T](params)
}

var errNotAttached = protocol.Errorf(protocol.ReasonPermissionDenied, "resume or create this session on this connection first")
