package rpc

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/hermes-gateway/hermes/internal/protocol"
)

const version = "2.0"

var nullID = json.RawMessage("null")

// envelope is any incoming frame, every member kept raw so presence and JSON
// type can be checked (a missing member is nil, a null one is "null").
type envelope struct {
	JSONRPC json.RawMessage `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  json.RawMessage `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
}

type kind int

const (
	kindRequest      kind = iota // needs a reply: dispatch, or answer reject
	kindNotification             // method without id
	kindResponse                 // reply to one of our Calls
	kindReject                   // needs a reply that is an error (reject), id may be null
)

// inbound is one classified frame.
type inbound struct {
	kind   kind
	id     json.RawMessage // nil for notifications
	method string
	params json.RawMessage
	result json.RawMessage // kindResponse
	err    *WireErr        // kindResponse: the peer's error; kindReject: ours
}

// classify sorts a frame by the rules of docs/protocol.md#json-rpc. It
// scans a well-formed object once: json.Unmarshal validates the whole frame
// before decoding, so its *json.SyntaxError is the parse error.
func classify(data []byte) inbound {
	if !isObject(data) {
		if !json.Valid(data) {
			return inbound{kind: kindReject, id: nullID, err: errParse}
		}
		return inbound{kind: kindReject, id: nullID, err: errInvalidRequest}
	}
	var env envelope
	if err := json.Unmarshal(data, &env); err != nil {
		if se := (*json.SyntaxError)(nil); errors.As(err, &se) {
			return inbound{kind: kindReject, id: nullID, err: errParse}
		}
		return inbound{kind: kindReject, id: nullID, err: errInvalidRequest}
	}
	if !membersUnique(data) {
		// Which "id" is meant is unknowable, so the answer carries null.
		return inbound{kind: kindReject, id: nullID, err: errInvalidRequest}
	}
	id := env.ID
	if id != nil && !validID(id) {
		return inbound{kind: kindReject, id: nullID, err: errInvalidRequest}
	}
	if string(env.JSONRPC) != `"`+version+`"` {
		return reject(id, errInvalidRequest)
	}
	if env.Method == nil {
		return classifyResponse(env)
	}
	var method string
	if json.Unmarshal(env.Method, &method) != nil || method == "" {
		return reject(id, errInvalidRequest)
	}
	if env.Params != nil && !isObject(env.Params) && !isNull(env.Params) {
		bad := WireError(protocol.Errorf(protocol.ReasonInvalidParams, "params must be a JSON object"))
		if id == nil {
			return inbound{kind: kindNotification, method: method, params: nil, err: bad}
		}
		return reject(id, bad)
	}
	if id == nil {
		return inbound{kind: kindNotification, method: method, params: env.Params}
	}
	return inbound{kind: kindRequest, id: id, method: method, params: env.Params}
}

func classifyResponse(env envelope) inbound {
	if env.ID == nil || (env.Result == nil) == (env.Error == nil) {
		return reject(env.ID, errInvalidRequest)
	}
	in := inbound{kind: kindResponse, id: env.ID, result: env.Result}
	if env.Error != nil {
		var w WireErr
		if json.Unmarshal(env.Error, &w) != nil {
			w = WireErr{Code: protocol.CodeInvalidRequest, Message: "malformed error response"}
		}
		in.err = &w
	}
	return in
}

func reject(id json.RawMessage, err *WireErr) inbound {
	if id == nil {
		id = nullID
	}
	return inbound{kind: kindReject, id: id, err: err}
}

// validID: a JSON-RPC id is a string, a number or null.
func validID(id json.RawMessage) bool {
	switch c := firstByte(id); {
	case c == '"', c == 'n', c == '-', c >= '0' && c <= '9':
		return true
	}
	return false
}

func isObject(raw []byte) bool { return firstByte(raw) == '{' }
func isNull(raw []byte) bool   { return string(bytes.TrimSpace(raw)) == "null" }

func firstByte(raw []byte) byte {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	if len(raw) == 0 {
		return 0
	}
	return raw[0]
}

// idKey normalizes an id for matching a response to its Call.
func idKey(id json.RawMessage) string { return string(bytes.TrimSpace(id)) }

// frame encodes r exactly as json.Marshal(r) would, without re-scanning
// Params: they come from json.Marshal (marshalParams), so they are already
// compact and escaped, and only the small members are encoded here.
func (r request) frame() ([]byte, error) {
	method, err := json.Marshal(r.Method)
	if err != nil {
		return nil, err
	}
	b := make([]byte, 0, len(r.Params)+len(method)+len(r.ID)+48)
	b = append(b, `{"jsonrpc":"`+version+`"`...)
	if len(r.ID) > 0 {
		if b, err = appendMember(b, "id", r.ID); err != nil {
			return nil, err
		}
	}
	b = append(b, `,"method":`...)
	b = append(b, method...)
	if len(r.Params) > 0 {
		b = append(b, `,"params":`...)
		b = append(b, r.Params...)
	}
	return append(b, '}'), nil
}

// frame encodes r like json.Marshal(r); a result (from json.Marshal in
// reply) is copied as it is. Error responses take the general path.
func (r response) frame() ([]byte, error) {
	if r.Error != nil || len(r.Result) == 0 {
		return json.Marshal(r)
	}
	b := make([]byte, 0, len(r.Result)+len(r.ID)+40)
	b = append(b, `{"jsonrpc":"`+version+`"`...)
	b, err := appendMember(b, "id", r.ID)
	if err != nil {
		return nil, err
	}
	b = append(b, `,"result":`...)
	b = append(b, r.Result...)
	return append(b, '}'), nil
}

// appendMember appends ,"name":raw with raw compacted and escaped as
// json.Marshal does with a json.RawMessage (ids are peer bytes).
func appendMember(b []byte, name string, raw json.RawMessage) ([]byte, error) {
	v, err := json.Marshal(raw)
	if err != nil {
		return nil, err
	}
	b = append(b, `,"`+name+`":`...)
	return append(b, v...), nil
}

// request is an outgoing request or notification (ID nil).
type request struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params,omitempty"`
}

// response is an outgoing reply; ID is always present (null when unknown).
type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *WireErr        `json:"error,omitempty"`
}
