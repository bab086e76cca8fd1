// Package rpc is the JSON-RPC 2.0 engine of Hermes Gateway (docs/protocol.md#json-rpc,
// #errors): one Conn per message stream, used by the server (with a
// Mux of handlers) and by the Go client (Call, OnNotify for events).
//
// It owns the engine, not the methods. It may import only protocol (the
// error reasons WireError maps) and strictjson (DecodeParams), and must
// never import server, client or authority: both sides of the wire share it,
// and neither may reach the other through it.
//
// # Wire
//
// Every frame is one JSON object. A request carries "id" and "method"; a
// notification carries "method" and no "id"; a response carries "id" and
// exactly one of "result" or "error". A frame that is not JSON is answered
// -32700 with id null; valid JSON that is not a request object (an array or
// batch, a wrong "jsonrpc", a missing or non-string "method", an id that is
// not a string, number or null, an envelope member named twice or in another
// case such as {"id":1,"id":2} or "ID", refused like a duplicate key in
// params) is answered -32600; "params" that are present and neither an
// object nor null are invalid_params (4001), as in docs/protocol.md#json-rpc. Notifications that arrive at a Conn without an OnNotify are dropped.
//
// # Errors
//
// WireError is the one mapping from Go errors to wire errors: a
// *protocol.Error becomes its reason's code with message = reason and data
// {"reason", "detail"?}; anything else becomes 5001 storage_unavailable and its
// text goes only to the Logger. A handler panic is recovered and answered 5001.
// On the calling side an error response becomes a *CallError.
//
// # Concurrency and delivery
//
// Run owns two goroutines' worth of work: the read loop (the caller of Run)
// and one serve goroutine. Requests of one connection are handled in order,
// one at a time, by the serve goroutine, so responses come back in request
// order; every frame that needs a reply (including parse and envelope errors)
// goes through the same in-order queue. The queue holds at most
// Options.MaxInflight requests; a request beyond that is answered at once
// with "overloaded" (the only reply that may overtake earlier ones).
//
// Writes are serialized by a one-slot semaphore (a mutex whose acquisition
// honours a context): replies, Notify and Call each hold it for exactly one
// frame write and never while a handler runs, so Notify waits at most for one
// frame already being written, never for a slow handler, and frames never
// interleave. Notify and Call are safe for concurrent use and may be called
// before Run (e.g. the server's gateway.ready event).
//
// Incoming notifications and responses are delivered by the read loop:
// OnNotify runs on it in arrival order and must not block (in particular it
// must not Call on the same Conn synchronously). A Call only completes while
// Run is reading.
//
// Options.WriteTimeout bounds each frame write: a peer that stops reading
// makes the blocked write fail and the connection close, so no writer waits
// on it for longer. Over a WebSocket, a text frame that is not UTF-8 closes
// the connection with status 1007.
//
// Run returns after the serve goroutine has exited; on return the stream is
// closed, pending Calls fail with ErrClosed and handler contexts are
// cancelled. Close may be called at any time, from any goroutine.
package rpc
