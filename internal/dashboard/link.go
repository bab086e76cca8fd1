package dashboard

import (
	"net/http"

	"github.com/hermes-gateway/hermes/internal/auth"
	"github.com/hermes-gateway/hermes/internal/gate"
)

// serveLink is GET /auth/link?ticket=: it redeems a dashboard-login ticket
// (single use, 30 s; minted over the control socket by `hermes dashboard`),
// opens a dashboard session as the ticket's subject (dashboard:uid:N) with
// a SameSite=Strict cookie and redirects to the UI. In gated mode the link
// is only accepted on the loopback listener names, never via the public
// host: the ticket is for the machine it was minted on.
func (d *Dashboard) serveLink(w http.ResponseWriter, r *http.Request) {
	if d.oidc != nil && !gate.LoopbackHost(r.Host, d.port) {
		d.refuseHTTP(w, r, http.StatusForbidden, "login link on the public host")
		return
	}
	q := r.URL.Query()
	if len(q["ticket"]) != 1 {
		d.refuseHTTP(w, r, http.StatusUnauthorized, "login link without exactly one ticket")
		return
	}
	g, err := d.cfg.Tickets.Redeem(q.Get("ticket"), auth.PurposeDashboardLogin)
	if err != nil {
		d.refuseHTTP(w, r, http.StatusUnauthorized, "bad, expired or replayed login ticket")
		return
	}
	if d.cfg.ProfileID != "" && g.ProfileID != d.cfg.ProfileID {
		d.refuseHTTP(w, r, http.StatusUnauthorized, "login ticket of another profile")
		return
	}
	d.login(w, r, g.Subject, loginLink)
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, "/", http.StatusSeeOther)
}
