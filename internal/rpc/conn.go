package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/hermes-gateway/hermes/internal/protocol"
)

// DefaultMaxInflight is the request queue bound when Options.MaxInflight is 0.
const DefaultMaxInflight = 64

// NotifyFunc receives an incoming notification. It runs on the read loop in
// arrival order and must not block.
type NotifyFunc func(method string, params json.RawMessage)

// Options configure a Conn. The zero value is a client that drops
// notifications and logs nothing.
type Options struct {
	Mux         *Mux         // request handlers; nil answers every request -32601
	OnNotify    NotifyFunc   // nil drops incoming notifications
	Logger      *slog.Logger // nil discards; receives internal error text
	MaxInflight int          // queued requests before "overloaded"; 0 = DefaultMaxInflight
	// WriteTimeout bounds one frame write; a write still blocked after it
	// (a peer that stopped reading) closes the connection. 0 = no bound.
	WriteTimeout time.Duration
}

// Conn is one JSON-RPC connection over a Stream. See the package doc for the
// concurrency model.
type Conn struct {
	stream       Stream
	mux          *Mux
	onNotify     NotifyFunc
	log          *slog.Logger
	maxInflight  int
	writeTimeout time.Duration // 0: writes wait as long as their context

	// writeSem holds the right to write one frame (capacity 1).
	writeSem chan struct{}

	closeOnce sync.Once
	closeErr  error         // set once by closeOnce
	done      chan struct{} // closed by Close: no more reads or writes

	mu      sync.Mutex
	started bool                    // Run was called
	nextID  int64                   // last id used by Call
	pending map[string]chan inbound // Call id -> its reply slot (buffered 1)
}

// NewConn returns a Conn over s. Call Run to read; Notify and Call may be
// used as soon as NewConn returns (Call completes only while Run reads).
func NewConn(s Stream, opts Options) *Conn {
	c := &Conn{
		stream:       s,
		mux:          opts.Mux,
		onNotify:     opts.OnNotify,
		log:          opts.Logger,
		maxInflight:  opts.MaxInflight,
		writeTimeout: opts.WriteTimeout,
		writeSem:     make(chan struct{}, 1),
		done:         make(chan struct{}),
		pending:      make(map[string]chan inbound),
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	if c.maxInflight <= 0 {
		c.maxInflight = DefaultMaxInflight
	}
	return c
}

// Run reads and dispatches frames until the stream ends, ctx is done or Close
// is called, then closes the connection and returns after the serve goroutine
// has exited. It returns nil when the peer closed cleanly or Close was
// called, ctx.Err() when ctx ended it, and the read error otherwise (e.g. one
// wrapping websocket.ErrMessageTooBig). Run may be called once.
func (c *Conn) Run(ctx context.Context) error {
	if !c.start() {
		return errors.New("rpc: Run called twice")
	}
	ctx, cancel := context.WithCancel(ctx)
	queue := make(chan inbound, c.maxInflight)
	var wg sync.WaitGroup
	wg.Go(func() { c.serve(ctx, queue) })
	err := c.readLoop(ctx, queue)
	closedByCall := c.isDone()
	cancel()
	_ = c.Close()
	wg.Wait()
	if errors.Is(err, io.EOF) || closedByCall {
		return nil
	}
	return err
}

func (c *Conn) start() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	ok := !c.started
	c.started = true
	return ok
}

func (c *Conn) isDone() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

func (c *Conn) readLoop(ctx context.Context, queue chan<- inbound) error {
	for {
		data, err := c.stream.Read(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return err
		}
		c.route(ctx, classify(data), queue)
	}
}

// route delivers one classified frame; it runs on the read loop.
func (c *Conn) route(ctx context.Context, in inbound, queue chan<- inbound) {
	switch in.kind {
	case kindResponse:
		c.deliver(in)
	case kindNotification:
		if in.err == nil && c.onNotify != nil {
			c.notifyLocal(in)
		}
	default: // kindRequest, kindReject: answered in order by serve
		select {
		case queue <- in:
		default:
			c.reply(ctx, in.id, nil, protocol.Errorf(protocol.ReasonOverloaded, "too many requests in flight"), in.method)
		}
	}
}

func (c *Conn) notifyLocal(in inbound) {
	defer func() {
		if r := recover(); r != nil {
			c.log.Error("rpc: notification handler panicked", "method", in.method, "panic", r)
		}
	}()
	c.onNotify(in.method, in.params)
}

// deliver hands a response to the Call waiting for its id.
func (c *Conn) deliver(in inbound) {
	key := idKey(in.id)
	c.mu.Lock()
	slot, ok := c.pending[key]
	delete(c.pending, key)
	c.mu.Unlock()
	if !ok {
		c.log.Debug("rpc: response to no pending call", "id", key)
		return
	}
	slot <- in // buffered 1, one send per slot
}

// serve answers queued frames one at a time, in arrival order.
func (c *Conn) serve(ctx context.Context, queue <-chan inbound) {
	for {
		select {
		case <-ctx.Done():
			return
		case in := <-queue:
			if ctx.Err() != nil {
				return
			}
			c.answer(ctx, in)
		}
	}
}

func (c *Conn) answer(ctx context.Context, in inbound) {
	if in.kind == kindReject {
		c.writeReply(ctx, response{JSONRPC: version, ID: in.id, Error: in.err})
		return
	}
	result, err := c.dispatch(ctx, in)
	c.reply(ctx, in.id, result, err, in.method)
}

// dispatch runs the handler of in.method, turning a panic into an error.
func (c *Conn) dispatch(ctx context.Context, in inbound) (result any, err error) {
	h := c.mux.lookup(in.method)
	if h == nil {
		return nil, &protocol.Error{Reason: protocol.ReasonUnknownMethod, Detail: in.method}
	}
	defer func() {
		if r := recover(); r != nil {
			c.log.Error("rpc: handler panicked", "method", in.method, "panic", r)
			err = errors.New("handler panicked")
		}
	}()
	return h(ctx, in.params)
}

// reply writes the response of one request: result, or err mapped by
// WireError (internal text logged, never sent).
func (c *Conn) reply(ctx context.Context, id json.RawMessage, result any, err error, method string) {
	resp := response{JSONRPC: version, ID: id}
	if err == nil {
		raw, merr := json.Marshal(result)
		if merr == nil {
			resp.Result = raw
		}
		err = merr
	}
	if err != nil {
		if internalText(err) {
			c.log.Error("rpc: request failed", "method", method, "err", err)
		}
		resp.Error = WireError(err)
	}
	c.writeReply(ctx, resp)
}

func (c *Conn) writeReply(ctx context.Context, resp response) {
	data, err := resp.frame()
	if err == nil {
		err = c.write(ctx, data)
	}
	if err != nil && !errors.Is(err, ErrClosed) {
		c.log.Debug("rpc: write reply failed; closing", "err", err)
		_ = c.Close()
	}
}

// write writes data as one frame while holding writeSem. A write that
// outlasts writeTimeout closes the connection: the frame may be half sent,
// and a peer that does not read must not hold a writer (the event pump, a
// reply) forever.
func (c *Conn) write(ctx context.Context, data []byte) error {
	if c.isDone() {
		return ErrClosed
	}
	select {
	case c.writeSem <- struct{}{}:
	case <-c.done:
		return ErrClosed
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-c.writeSem }()
	if c.writeTimeout <= 0 {
		return c.stream.Write(ctx, data)
	}
	wctx, cancel := context.WithTimeoutCause(ctx, c.writeTimeout, errWriteTimeout)
	defer cancel()
	err := c.stream.Write(wctx, data)
	if err != nil && errors.Is(context.Cause(wctx), errWriteTimeout) {
		c.log.Info("rpc: write blocked longer than the write timeout; closing", "timeout", c.writeTimeout)
		_ = c.Close()
		return errWriteTimeout
	}
	return err
}

// errWriteTimeout is what a write that outlasted Options.WriteTimeout
// returns; the connection is closed by then.
var errWriteTimeout = errors.New("rpc: write timed out; connection closed")

// Notify sends a notification. It is safe for concurrent use with replies,
// other Notifies and Calls, and waits only for a frame already being written.
func (c *Conn) Notify(ctx context.Context, method string, params any) error {
	raw, err := marshalParams(params)
	if err != nil {
		return err
	}
	data, err := request{JSONRPC: version, Method: method, Params: raw}.frame()
	if err != nil {
		return err
	}
	return c.write(ctx, data)
}

// Call sends a request and waits for its response, which it unmarshals into
// result (skipped when result is nil). An error response is a *CallError; a
// closed connection is ErrClosed; a done ctx abandons the call (a late
// response is dropped).
func (c *Conn) Call(ctx context.Context, method string, params, result any) error {
	raw, err := marshalParams(params)
	if err != nil {
		return err
	}
	id, slot, err := c.register()
	if err != nil {
		return err
	}
	defer c.unregister(id)
	data, err := request{JSONRPC: version, ID: json.RawMessage(id), Method: method, Params: raw}.frame()
	if err != nil {
		return err
	}
	if err := c.write(ctx, data); err != nil {
		return err
	}
	select {
	case in := <-slot:
		if in.err != nil {
			return callError(in.err)
		}
		if result == nil {
			return nil
		}
		return json.Unmarshal(in.result, result)
	case <-ctx.Done():
		return ctx.Err()
	case <-c.done:
		return ErrClosed
	}
}

func (c *Conn) register() (string, chan inbound, error) {
	if c.isDone() {
		return "", nil, ErrClosed
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.nextID++
	id := strconv.FormatInt(c.nextID, 10)
	slot := make(chan inbound, 1)
	c.pending[id] = slot
	return id, slot, nil
}

func (c *Conn) unregister(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.pending, id)
}

func marshalParams(params any) (json.RawMessage, error) {
	if params == nil {
		return nil, nil
	}
	return json.Marshal(params)
}

// Close closes the stream; Run then returns and pending Calls fail with
// ErrClosed. It is safe to call more than once and concurrently.
func (c *Conn) Close() error {
	c.closeOnce.Do(func() {
		close(c.done)
		c.closeErr = c.stream.Close()
	})
	return c.closeErr
}
