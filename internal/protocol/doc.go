// Package protocol is the wire contract of Hermes Gateway: JSON-RPC method
// names, params and result shapes, event types and error reasons
// (docs/protocol.md#websocket, #events, #client-details). It imports nothing internal so every side — server,
// client, tests — speaks the same names.
//
// Invariants:
//   - Field names and JSON tags here are the contract; renaming one is a
//     breaking change for every client.
//   - Params structs are decoded strictly (rpc.DecodeParams): unknown,
//     case-variant and duplicate keys are invalid_params.
//   - Nothing in this package carries a secret except fields documented as
//     such (SessionCreateParams.APIKey, SessionResumeParams.APIKey), which the
//     server never echoes or stores.
package protocol
