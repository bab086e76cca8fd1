package server

import (
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/coder/websocket"

	"github.com/hermes-gateway/hermes/internal/auth"
	"github.com/hermes-gateway/hermes/internal/gate"
	"github.com/hermes-gateway/hermes/internal/ids"
	"github.com/hermes-gateway/hermes/internal/protocol"
)

// gateError is a refusal before the upgrade: its status is the whole answer.
type gateError struct {
	status int
	why    string // logged, never sent
}

func (e *gateError) Error() string { return e.why }

func refuse(status int, why string) error { return &gateError{status: status, why: why} }

// serveWS authenticates the upgrade (docs/protocol.md#gates), then hands the socket to a
// JSON-RPC connection. Bad credentials are 401 and a bad Origin 403, both
// before any upgrade.
func (s *Server) serveWS(w http.ResponseWriter, r *http.Request) {
	p, err := s.authenticate(r)
	if err != nil {
		var ge *gateError
		if !errors.As(err, &ge) {
			ge = &gateError{status: http.StatusUnauthorized, why: err.Error()}
		}
		s.log.Info("websocket upgrade refused", "status", ge.status, "why", ge.why, "remote", r.RemoteAddr)
		http.Error(w, http.StatusText(ge.status), ge.status)
		return
	}
	ws, err := websocket.Accept(w, r, &websocket.AcceptOptions{
		Subprotocols:       []string{protocol.Subprotocol},
		InsecureSkipVerify: true, // Origin was checked by authenticate, per path
	})
	if err != nil {
		return
	}
	ws.SetReadLimit(s.cfg.MaxFrameBytes)
	s.serveConn(r.Context(), ws, p)
}

// authenticate picks the one credential path the request presents.
func (s *Server) authenticate(r *http.Request) (auth.Principal, error) {
	offered := offeredProtocols(r)
	q := r.URL.Query()
	switch {
	case hasTicketProtocol(offered):
		return s.nativeTicket(r, offered)
	case q.Has("token"):
		return s.legacyToken(r, q)
	case q.Has("ticket") || q.Has("internal"):
		return s.dashboardCredential(r)
	}
	return auth.Principal{}, refuse(http.StatusUnauthorized, "no credential")
}

func offeredProtocols(r *http.Request) []string {
	var out []string
	for _, h := range r.Header.Values("Sec-WebSocket-Protocol") {
		for _, p := range strings.Split(h, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}

func hasTicketProtocol(offered []string) bool {
	for _, p := range offered {
		if strings.HasPrefix(p, protocol.TicketSubprotocolPrefix) {
			return true
		}
	}
	return false
}

// nativeTicket: exactly one ticket subprotocol next to hermes-gateway-v1, no
// Origin (a browser always sends one), a loopback peer.
func (s *Server) nativeTicket(r *http.Request, offered []string) (auth.Principal, error) {
	if r.Header.Get("Origin") != "" {
		return auth.Principal{}, refuse(http.StatusForbidden, "native ticket with an Origin header")
	}
	if !gate.LoopbackPeer(r.RemoteAddr) {
		return auth.Principal{}, refuse(http.StatusForbidden, "native ticket from a non-loopback peer")
	}
	var ticket string
	base := false
	for _, p := range offered {
		if p == protocol.Subprotocol {
			base = true
		} else if t, ok := strings.CutPrefix(p, protocol.TicketSubprotocolPrefix); ok {
			if ticket != "" {
				return auth.Principal{}, refuse(http.StatusUnauthorized, "more than one ticket offered")
			}
			ticket = t
		}
	}
	if !base {
		return auth.Principal{}, refuse(http.StatusUnauthorized, "subprotocol hermes-gateway-v1 not offered")
	}
	g, err := s.cfg.Tickets.Redeem(ticket, auth.PurposeInteractive)
	if err != nil {
		return auth.Principal{}, refuse(http.StatusUnauthorized, "bad or replayed ticket")
	}
	return s.principal(g.Subject, g.ProfileID), nil
}

// legacyToken: ?token= on a loopback, non-gated gateway with the legacy path
// enabled; compared in constant time.
func (s *Server) legacyToken(r *http.Request, q url.Values) (auth.Principal, error) {
	if s.cfg.Gated || s.cfg.LegacyToken == "" {
		return auth.Principal{}, refuse(http.StatusUnauthorized, "legacy token path disabled")
	}
	if o := r.Header.Get("Origin"); o != "" && !s.gate.OriginAllowed(o) {
		return auth.Principal{}, refuse(http.StatusForbidden, "origin not allowed")
	}
	if !auth.EqualSecret(q.Get("token"), s.cfg.LegacyToken) {
		return auth.Principal{}, refuse(http.StatusUnauthorized, "bad legacy token")
	}
	return s.principal(auth.SubjectLegacyToken, s.cfg.Authority.ProfileID()), nil
}

// principal builds the identity a gate grants: every gate grants the
// interactive capabilities plus session:operator (docs/protocol.md#gates).
func (s *Server) principal(subject, profileID string) auth.Principal {
	return auth.Principal{Subject: subject, ProfileID: profileID, TransportID: ids.New("", 16), Caps: auth.GateCaps()}
}

// dashboardCredential delegates ?ticket= and ?internal= to the dashboard.
func (s *Server) dashboardCredential(r *http.Request) (auth.Principal, error) {
	if s.cfg.Dashboard == nil {
		return auth.Principal{}, refuse(http.StatusUnauthorized, "dashboard disabled")
	}
	subject, err := s.cfg.Dashboard.AuthenticateWS(r)
	if err != nil {
		var dr *DashboardRefusal
		if errors.As(err, &dr) {
			return auth.Principal{}, refuse(dr.Status, dr.Why)
		}
		return auth.Principal{}, refuse(http.StatusUnauthorized, err.Error())
	}
	return s.principal(subject, s.cfg.Authority.ProfileID()), nil
}
