// Package client is the Go client of the Hermes Gateway WebSocket JSON-RPC
// API (docs/protocol.md#websocket, #events), used by the CLI, the TUI, ACP and the API and process
// tests.
//
// It may import only rpc and protocol, and must never import the server side
// (store, authority, server, daemon, dashboard, events, agent, tools,
// sandbox, worker, mcp), not even transitively: the "Clients stay clients"
// table of docs/architecture.md, which the architecture test checks.
//
// Dial performs the upgrade on <apiOrigin>/api/ws, offering subprotocol
// hermes-gateway-v1 (plus hermes-gateway-ticket.<t> for a native ticket),
// refuses a server that does not select hermes-gateway-v1, and returns only
// after the server's first frame, the gateway.ready event. An HTTP refusal
// (401, 403, …) is a *DialError carrying the status.
//
// # Events
//
// Every "event" notification after gateway.ready is delivered on Events(),
// in arrival order (gateway.ready itself is consumed by Dial). The channel
// is buffered (Options.EventBuffer). The client never drops an event
// silently and never blocks its read loop on the consumer (that would also
// stall Call replies and deadlock a consumer that calls while it is behind):
// when the buffer is full the connection is closed at once and Err reports
// ErrEventOverflow. Like the server's replay_gap, this tells the consumer
// it missed events; it reconnects and resumes (session.resume or
// session.events.since). Events() is closed when the connection ends, after
// the last event received.
//
// Clients must not assume an order between a reply and the events the same
// request caused (docs/protocol.md#json-rpc).
//
// # Goroutines
//
// A Client owns one goroutine, the rpc read loop (rpc.Conn.Run), started by
// Dial and joined by Close. Call and the typed helpers are safe for
// concurrent use.
package client
