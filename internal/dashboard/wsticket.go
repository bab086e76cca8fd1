package dashboard

import (
	"errors"
	"net/http"
	"time"
)

// WS ticket defaults: single use, 30 s, bounded.
const (
	DefaultWSTicketTTL = 30 * time.Second
	maxWSTickets       = 1024
)

// errTicketCapacity: too many unredeemed tickets; the browser retries later.
var errTicketCapacity = errors.New("too many outstanding websocket tickets")

// wsTickets is the single-use store behind POST /api/auth/ws-ticket: a
// ticket proves a dashboard session (by digest, re-checked at redemption so
// a logout revokes its tickets).
type wsTickets = oneShot[digest]

func newWSTickets(now func() time.Time, ttl time.Duration) *wsTickets {
	return newOneShot[digest](now, ttl, maxWSTickets, errTicketCapacity)
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
