package dashboard

import (
	"errors"
	"net/http"
	"sync"
	"time"
)

// WS ticket defaults: single use, 30 s, bounded.
const (
	DefaultWSTicketTTL = 30 * time.Second
	maxWSTickets       = 1024
)

// errTicketCapacity: too many unredeemed tickets; the browser retries later.
var errTicketCapacity = errors.New("too many outstanding websocket tickets")

// wsTicket is what a browser WebSocket ticket proves: a dashboard session
// (by digest, re-checked at redemption so a logout revokes its tickets).
type wsTicket struct {
	session digest
	expires time.Time // monotonic
}

// wsTickets is the single-use store behind POST /api/auth/ws-ticket. Only
// the sha256 of a ticket is kept; the first presentation removes it whatever
// the outcome, so exactly one of concurrent redemptions wins.
type wsTickets struct {
	now func() time.Time
	ttl time.Duration

	mu sync.Mutex
	m  map[digest]wsTicket // guarded by mu
}

func newWSTickets(now func() time.Time, ttl time.Duration) *wsTickets {
	return &wsTickets{now: now, ttl: ttl, m: map[digest]wsTicket{}}
}

// mint returns a fresh ticket bound to the session digest.
func (t *wsTickets) mint(session digest) (string, error) {
	tk := newSecret()
	now := t.now()
	t.mu.Lock()
	defer t.mu.Unlock()
	for d, w := range t.m {
		if !now.Before(w.expires) {
			delete(t.m, d)
		}
	}
	if len(t.m) >= maxWSTickets {
		return "", errTicketCapacity
	}
	t.m[digestOf(tk)] = wsTicket{session: session, expires: now.Add(t.ttl)}
	return tk, nil
}

// redeem consumes the ticket and returns the session digest it was minted
// for. Unknown, replayed and expired tickets are the same false.
func (t *wsTickets) redeem(ticket string) (digest, bool) {
	if ticket == "" || len(ticket) > maxSecretLen {
		return digest{}, false
	}
	d := digestOf(ticket)
	now := t.now()
	t.mu.Lock()
	w, ok := t.m[d]
	delete(t.m, d)
	t.mu.Unlock()
	if !ok || !now.Before(w.expires) {
		return digest{}, false
	}
	return w.session, true
}

// serveWSTicket is POST /api/auth/ws-ticket: session + CSRF gate → {ticket}.
func (d *Dashboard) serveWSTicket(w http.ResponseWriter, r *http.Request) {
	if !d.mutationAllowed(w, r) {
		return
	}
	_, key, ok := d.session(r)
	if !ok {
		d.refuseHTTP(w, r, http.StatusUnauthorized, "no dashboard session")
		return
	}
	tk, err := d.wsTickets.mint(key)
	if err != nil {
		d.refuseHTTP(w, r, http.StatusTooManyRequests, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"ticket": tk})
}
