package client

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/coder/websocket"

	"github.com/hermes-gateway/hermes/internal/protocol"
	"github.com/hermes-gateway/hermes/internal/rpc"
)

// Defaults for Options.
const (
	DefaultEventBuffer = 4096
	DefaultReadLimit   = 64 << 20 // bytes; snapshots carry up to 500 messages
)

// Options configure Dial. The zero value dials without credentials.
type Options struct {
	// Ticket is a native ticket, offered as subprotocol
	// hermes-gateway-ticket.<Ticket>. Secret: never logged.
	Ticket string
	// Query is appended to the URL: ?token=, ?ticket= or ?internal=.
	Query url.Values
	// Header is sent with the upgrade request (e.g. Origin for dashboard paths).
	Header http.Header
	// Logger receives rpc diagnostics; nil discards.
	Logger *slog.Logger
	// EventBuffer is how many events may wait for the consumer of Events
	// before the connection is closed with ErrEventOverflow. 0 = DefaultEventBuffer.
	EventBuffer int
	// ReadLimit is the largest frame accepted, in bytes. 0 = DefaultReadLimit.
	ReadLimit int64
}

// DialError is an upgrade the server refused with an HTTP status (401 for
// bad credentials, 403 for a bad Origin or Host).
type DialError struct {
	Status int
	Err    error
}

func (e *DialError) Error() string {
	return fmt.Sprintf("client: upgrade refused: HTTP %d: %v", e.Status, e.Err)
}

func (e *DialError) Unwrap() error { return e.Err }

// Errors a caller may branch on.
var (
	// ErrSubprotocol: the server did not select hermes-gateway-v1; it is not
	// a Hermes gateway (or not this protocol version). Do not retry.
	ErrSubprotocol = errors.New("client: server did not select subprotocol " + protocol.Subprotocol)
	// ErrNotReady: the connection ended, or sent something else, before
	// gateway.ready.
	ErrNotReady = errors.New("client: no gateway.ready from server")
	// ErrEventOverflow: the consumer of Events fell behind by more than
	// Options.EventBuffer events; the connection was closed so no event is
	// lost silently. Reconnect and resume.
	ErrEventOverflow = errors.New("client: event buffer overflow: consumer fell behind")
)

// Client is one WebSocket JSON-RPC connection to a gateway.
type Client struct {
	ws     *websocket.Conn // immutable
	conn   *rpc.Conn       // immutable
	events chan protocol.Event
	ready  chan struct{} // closed on gateway.ready
	done   chan struct{} // closed when the read loop has returned

	gotReady bool // only touched by the read loop (onNotify)

	mu  sync.Mutex
	err error // guarded by mu: why the connection ended, nil for a clean end
}

// Dial connects to apiOrigin (e.g. "http://127.0.0.1:43817"), performs the
// upgrade on /api/ws and waits for gateway.ready. ctx bounds the dial and
// the wait only; the connection lives until Close.
func Dial(ctx context.Context, apiOrigin string, opts Options) (*Client, error) {
	u, err := wsURL(apiOrigin, opts.Query)
	if err != nil {
		return nil, err
	}
	ws, err := upgrade(ctx, u, opts)
	if err != nil {
		return nil, err
	}
	c := start(ws, opts)
	select {
	case <-c.ready:
		return c, nil
	case <-c.done:
		_ = c.Close()
		return nil, fmt.Errorf("%w: %w", ErrNotReady, c.endErr())
	case <-ctx.Done():
		_ = c.Close()
		return nil, fmt.Errorf("%w: %w", ErrNotReady, ctx.Err())
	}
}

// wsURL maps an http(s) origin to the ws(s) URL of the API endpoint.
func wsURL(apiOrigin string, q url.Values) (string, error) {
	u, err := url.Parse(strings.TrimSuffix(apiOrigin, "/"))
	if err != nil {
		return "", fmt.Errorf("client: bad api origin: %w", err)
	}
	switch u.Scheme {
	case "http", "ws":
		u.Scheme = "ws"
	case "https", "wss":
		u.Scheme = "wss"
	default:
		return "", fmt.Errorf("client: bad api origin %q: scheme must be http or https", apiOrigin)
	}
	u.Path, u.RawQuery, u.Fragment = "/api/ws", q.Encode(), ""
	return u.String(), nil
}

// upgrade dials and checks the selected subprotocol.
func upgrade(ctx context.Context, u string, opts Options) (*websocket.Conn, error) {
	protos := []string{protocol.Subprotocol}
	if opts.Ticket != "" {
		protos = append(protos, protocol.TicketSubprotocolPrefix+opts.Ticket)
	}
	ws, resp, err := websocket.Dial(ctx, u, &websocket.DialOptions{
		Subprotocols: protos,
		HTTPHeader:   opts.Header,
	})
	if err != nil {
		if resp != nil && resp.StatusCode != http.StatusSwitchingProtocols {
			return nil, &DialError{Status: resp.StatusCode, Err: err}
		}
		return nil, fmt.Errorf("client: dial: %w", err)
	}
	if ws.Subprotocol() != protocol.Subprotocol {
		_ = ws.Close(websocket.StatusProtocolError, "subprotocol "+protocol.Subprotocol+" required")
		return nil, ErrSubprotocol
	}
	limit := opts.ReadLimit
	if limit == 0 {
		limit = DefaultReadLimit
	}
	ws.SetReadLimit(limit)
	return ws, nil
}

// start wraps ws in an rpc.Conn and starts the read loop.
func start(ws *websocket.Conn, opts Options) *Client {
	n := opts.EventBuffer
	if n <= 0 {
		n = DefaultEventBuffer
	}
	c := &Client{
		ws:     ws,
		events: make(chan protocol.Event, n),
		ready:  make(chan struct{}),
		done:   make(chan struct{}),
	}
	c.conn = rpc.NewConn(rpc.WebSocketStream(ws), rpc.Options{OnNotify: c.onNotify, Logger: opts.Logger})
	go c.run()
	return c
}

// run is the read loop; it owns sending on and closing c.events.
func (c *Client) run() {
	defer close(c.done)
	defer close(c.events)
	err := c.conn.Run(context.Background())
	c.setErr(err)
}

// Call sends a request and decodes its result into result (nil skips it).
// A server error is a *rpc.CallError; a connection that ended is
// rpc.ErrClosed, wrapped with the reason from Err when there is one.
func (c *Client) Call(ctx context.Context, method string, params, result any) error {
	err := c.conn.Call(ctx, method, params, result)
	if errors.Is(err, rpc.ErrClosed) {
		if cause := c.Err(); cause != nil {
			return fmt.Errorf("%w: %w", err, cause)
		}
	}
	return err
}

// Events returns the events received after gateway.ready, in arrival order.
// It is closed when the connection ends; see the package doc for what
// happens when the consumer is slow.
func (c *Client) Events() <-chan protocol.Event { return c.events }

// Done is closed when the connection has ended and the read loop returned.
func (c *Client) Done() <-chan struct{} { return c.done }

// Err reports why the connection ended abnormally (ErrEventOverflow, a
// read error, a malformed event); nil while it is open or after a clean end.
func (c *Client) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Close closes the connection (normal closure), stops the read loop and
// waits for it. It is safe to call more than once.
func (c *Client) Close() error {
	err := c.conn.Close()
	<-c.done
	return err
}

// setErr records the first abnormal end.
func (c *Client) setErr(err error) {
	if err == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == nil {
		c.err = err
	}
}

// endErr is why the connection ended before ready, for Dial's error.
func (c *Client) endErr() error {
	if err := c.Err(); err != nil {
		return err
	}
	return errors.New("connection closed")
}
