package control

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
)

// ProtocolVersion is the only control protocol version spoken.
const ProtocolVersion = 1

// Verbs (SPEC §3).
const (
	VerbIdentify      = "identify"
	VerbStatus        = "status"
	VerbSessionTicket = "session-ticket"
)

// Daemon states reported by identify.
const (
	StateStarting = "starting"
	StateReady    = "ready"
	StateDraining = "draining"
)

// MaxRequestBytes bounds one request line, newline included.
const MaxRequestBytes = 64 << 10

// maxReplyBytes bounds what Call reads back.
const maxReplyBytes = 1 << 20

// Identity is the identify result. It never holds a ticket or token.
type Identity struct {
	State          string   `json:"state"`
	PID            int      `json:"pid"`
	InstanceID     string   `json:"instance_id"`
	AuthorityEpoch int64    `json:"authority_epoch"`
	ProfileID      string   `json:"profile_id"`
	APIOrigin      string   `json:"api_origin"`
	Capabilities   []string `json:"capabilities"`
	// The tool sandbox of the profile's sandbox.mode: the mode, the level
	// this machine enforces (sandbox.Level) and the Landlock ABI (0 = none).
	SandboxMode  string `json:"sandbox_mode"`
	SandboxLevel string `json:"sandbox_level"`
	LandlockABI  int    `json:"landlock_abi"`
}

// Status is the status result: identify plus counts.
type Status struct {
	Identity
	SessionsLive      int `json:"sessions_live"`
	AdmissionsQueued  int `json:"admissions_queued"`
	AdmissionsRunning int `json:"admissions_running"`
	AdmissionsUnknown int `json:"admissions_unknown"`
}

// TicketParams are the params of session-ticket.
type TicketParams struct {
	ProfileID  string `json:"profile_id"`
	InstanceID string `json:"instance_id"`
	Purpose    string `json:"purpose"`
}

// TicketResult is the result of session-ticket. Ticket is a credential:
// callers must not log it.
type TicketResult struct {
	Ticket string `json:"ticket"`
}

// request is one request line.
type request struct {
	Protocol int             `json:"protocol"`
	ID       json.RawMessage `json:"id"`
	Verb     string          `json:"verb"`
	Params   json.RawMessage `json:"params"`
}

// reply is one reply line. ID echoes the request's id (null if unreadable).
type reply struct {
	OK       bool            `json:"ok"`
	Protocol int             `json:"protocol"`
	ID       json.RawMessage `json:"id"`
	Result   json.RawMessage `json:"result,omitempty"`
	Error    string          `json:"error,omitempty"`
}

// decodeStrict decodes the JSON object raw into v (a pointer to a struct)
// and refuses anything but exactly the struct's keys: unknown keys, keys
// that differ only in case, duplicate keys and trailing data. Empty raw or
// null counts as {}.
func decodeStrict(raw []byte, v any) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		raw = []byte("{}")
	}
	keys, err := objectKeys(raw)
	if err != nil {
		return err
	}
	allowed := jsonFields(reflect.TypeOf(v).Elem())
	for _, k := range keys {
		if !allowed[k] {
			return fmt.Errorf("unknown field %q", k)
		}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("trailing data after the object")
	}
	return nil
}

// objectKeys returns the top-level keys of a JSON object, refusing
// duplicates and non-objects.
func objectKeys(raw []byte) ([]string, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errors.New("not a JSON object")
	}
	var keys []string
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		k, _ := tok.(string)
		if seen[k] {
			return nil, fmt.Errorf("duplicate field %q", k)
		}
		seen[k] = true
		keys = append(keys, k)
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, err
		}
	}
	return keys, nil
}

// jsonFields lists the exact JSON names of a struct's fields, following
// embedded structs.
func jsonFields(t reflect.Type) map[string]bool {
	out := map[string]bool{}
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case name == "-":
		case f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct:
			for k := range jsonFields(f.Type) {
				out[k] = true
			}
		case name != "":
			out[name] = true
		case f.IsExported():
			out[f.Name] = true
		}
	}
	return out
}
