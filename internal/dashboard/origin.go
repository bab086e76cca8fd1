package dashboard

import (
	"net"
	"net/http"
	"net/netip"
)

// originAllowed reports whether origin is exactly one of the allow-list
// (scheme, host and port compared as strings: no case folding, no default
// ports, no suffix matching).
func (d *Dashboard) originAllowed(origin string) bool {
	for _, ok := range d.origins {
		if origin == ok {
			return true
		}
	}
	return false
}

// allowedOrigins is the Origin allow-list of SPEC §4.
func allowedOrigins(port, publicOrigin string) []string {
	out := []string{"http://127.0.0.1:" + port, "http://localhost:" + port, "http://[::1]:" + port}
	if publicOrigin != "" {
		out = append(out, publicOrigin)
	}
	return out
}

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
		ok = d.originAllowed(origin)
	default:
		ok = site == "same-origin"
	}
	if !ok {
		d.refuseHTTP(w, r, http.StatusForbidden, "cross-origin request refused")
	}
	return ok
}

// loopbackPeer reports whether the TCP peer is a loopback address.
func loopbackPeer(remote string) bool {
	host, _, err := net.SplitHostPort(remote)
	if err != nil {
		return false
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}

// loopbackHost reports whether the Host header names the listener by a
// loopback name (not the public host of gated mode).
func (d *Dashboard) loopbackHost(host string) bool {
	for _, h := range []string{"127.0.0.1", "localhost", "[::1]"} {
		if host == h+":"+d.port {
			return true
		}
	}
	return false
}
