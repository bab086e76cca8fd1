package dashboard

import "net/http"

// mutationAllowed is the CSRF gate of every mutating HTTP route: an
// allow-listed Origin, or — when the browser sent none — Sec-Fetch-Site:
// same-origin. A cross-site or same-site fetch is refused whatever its
// Origin. On refusal it has answered 403.
func (d *Dashboard) mutationAllowed(w http.ResponseWriter, r *http.Request) bool {
	site := r.Header.Get("Sec-Fetch-Site")
	origin := r.Header.Get("Origin")
	ok := false
	switch {
	case site != "" && site != "same-origin" && site != "none":
		ok = false
	case origin != "":
		ok = d.gate.OriginAllowed(origin)
	default:
		ok = site == "same-origin"
	}
	if !ok {
		d.refuseHTTP(w, r, http.StatusForbidden, "cross-origin request refused")
	}
	return ok
}
