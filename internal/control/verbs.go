package control

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/hermes-gateway/hermes/internal/auth"
	"github.com/hermes-gateway/hermes/internal/strictjson"
)

// Handler is the daemon side the control socket serves.
type Handler interface {
	// Identify returns the identify fields; it must not block.
	Identify() Identity
	// Status returns the identify fields plus the session counts.
	Status(ctx context.Context) (Status, error)
	// MintTicket mints a ticket (auth.Tickets.MintFor) for the peer the
	// kernel reported; subject is derived here from the peer, the rest
	// comes from the request.
	MintTicket(peer auth.Peer, subject, profileID, instanceID, purpose string) (string, error)
}

// Errors a Handler returns reach the peer as "internal error" (and the log)
// unless they are auth's public ticket errors (ErrForeignProfile,
// ErrStaleInstance, ErrUnknownPurpose) or wrap a
// *RemoteError, whose Text is sent as is.

// publicError is an error whose text may be sent to the peer as is.
type publicError string

func (e publicError) Error() string { return string(e) }

// refusal is a public text with an internal cause that is only logged.
type refusal struct {
	text  string
	cause error
}

func (e *refusal) Error() string { return e.text + ": " + e.cause.Error() }
func (e *refusal) Unwrap() error { return e.cause }

// publicTexts are the auth errors whose own text is public (none carries a
// ticket).
var publicTexts = []error{
	auth.ErrForeignProfile, auth.ErrStaleInstance, auth.ErrUnknownPurpose,
}

// publicText is the one mapping from an error to the text a peer sees.
func publicText(err error) string {
	var pe publicError
	var r *refusal
	var re *RemoteError
	switch {
	case errors.As(err, &pe):
		return string(pe)
	case errors.As(err, &r):
		return r.text
	case errors.As(err, &re):
		return re.Text
	}
	for _, known := range publicTexts {
		if errors.Is(err, known) {
			return known.Error()
		}
	}
	return "internal error"
}

// verbFunc answers one verb for a checked peer.
type verbFunc func(s *Server, ctx context.Context, p peer, params json.RawMessage) (any, error)

var verbs = map[string]verbFunc{
	VerbIdentify:      (*Server).identify,
	VerbStatus:        (*Server).status,
	VerbSessionTicket: (*Server).sessionTicket,
}

// handleLine decodes one request line and answers it.
func (s *Server) handleLine(ctx context.Context, p peer, line []byte) reply {
	var req request
	if len(bytes.TrimSpace(line)) == 0 {
		return s.fail(nil, "", p, publicError("malformed request: empty line"))
	}
	if err := strictjson.Decode(line, &req); err != nil {
		return s.fail(nil, "", p, &refusal{text: "malformed request: want one JSON object {protocol, id, verb, params}", cause: err})
	}
	if req.Protocol != ProtocolVersion {
		return s.fail(req.ID, req.Verb, p, publicError(fmt.Sprintf("unsupported protocol %d (this gateway speaks %d)", req.Protocol, ProtocolVersion)))
	}
	fn, ok := verbs[req.Verb]
	if !ok {
		return s.fail(req.ID, req.Verb, p, publicError(fmt.Sprintf("unknown verb %q", req.Verb)))
	}
	res, err := fn(s, ctx, p, req.Params)
	if err != nil {
		return s.fail(req.ID, req.Verb, p, err)
	}
	b, err := json.Marshal(res)
	if err != nil {
		return s.fail(req.ID, req.Verb, p, err)
	}
	return reply{OK: true, Protocol: ProtocolVersion, ID: req.ID, Result: b}
}

// fail logs err (whose text never holds a ticket) and builds the ok:false
// reply with its public text.
func (s *Server) fail(id json.RawMessage, verb string, p peer, err error) reply {
	s.log.Info("control request refused", "verb", verb, "peer_uid", p.UID, "peer_pid", p.PID, "err", err)
	return reply{OK: false, Protocol: ProtocolVersion, ID: id, Error: publicText(err)}
}

func noParams(params json.RawMessage) error {
	var none struct{}
	if err := strictjson.Decode(params, &none); err != nil {
		return &refusal{text: "this verb takes no params", cause: err}
	}
	return nil
}

func (s *Server) identify(_ context.Context, _ peer, params json.RawMessage) (any, error) {
	if err := noParams(params); err != nil {
		return nil, err
	}
	id := s.h.Identify()
	if id.Capabilities == nil {
		id.Capabilities = []string{}
	}
	return id, nil
}

func (s *Server) status(ctx context.Context, _ peer, params json.RawMessage) (any, error) {
	if err := noParams(params); err != nil {
		return nil, err
	}
	st, err := s.h.Status(ctx)
	if err != nil {
		return nil, &refusal{text: "status unavailable", cause: err}
	}
	if st.Capabilities == nil {
		st.Capabilities = []string{}
	}
	return st, nil
}

// sessionTicket mints a ticket whose subject is derived from the peer uid,
// after refusing tool process trees.
func (s *Server) sessionTicket(_ context.Context, p peer, params json.RawMessage) (any, error) {
	var tp TicketParams
	if err := strictjson.Decode(params, &tp); err != nil {
		return nil, &refusal{text: "invalid params: want {profile_id, instance_id, purpose}", cause: err}
	}
	var subject string
	switch tp.Purpose {
	case auth.PurposeInteractive:
		subject = auth.NativeSubject(p.UID)
	case auth.PurposeDashboardLogin:
		subject = auth.DashboardLinkSubject(p.UID)
	default:
		return nil, publicError(fmt.Sprintf("unknown purpose %q (want %q or %q)", tp.Purpose, auth.PurposeInteractive, auth.PurposeDashboardLogin))
	}
	if err := checkNotTool(p.PID, s.tool); err != nil {
		return nil, err
	}
	ticket, err := s.h.MintTicket(auth.Peer{UID: p.UID, PID: p.PID}, subject, tp.ProfileID, tp.InstanceID, tp.Purpose)
	if err != nil {
		return nil, err
	}
	return TicketResult{Ticket: ticket}, nil
}

// writeJSONLine writes v as one JSON line.
func writeJSONLine(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}
