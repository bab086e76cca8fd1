// Package gate is the one HTTP gate policy of the gateway's listener, shared
// by the /api/ws gate (internal/server) and the dashboard's routes
// (internal/dashboard): which TCP peers are loopback, which Host headers
// name the listener (the DNS-rebinding guard), which Origin headers are
// allow-listed (docs/protocol.md#gates), and how dashboard.public_url is taken apart into
// the origin and host those checks compare against.
//
// Every comparison is exact, as strings: no case folding, no default ports
// (http://127.0.0.1 is not http://127.0.0.1:80), no trailing slash, no
// suffix or prefix matching. The loopback names are 127.0.0.1, localhost and
// [::1], each with the listener's port.
//
// The package is pure (no I/O, no state) and imports nothing internal; it
// must never import the packages that enforce it (server, dashboard) nor
// auth, which decides who a caller is once the gate has let it through.
package gate

import (
	"net"
	"net/netip"
	"net/url"
)

// loopbackNames are the host names of the listener on loopback, as a Host
// header or an Origin spells them.
var loopbackNames = [...]string{"127.0.0.1", "localhost", "[::1]"}

// LoopbackPeer reports whether remote (an http.Request.RemoteAddr,
// "ip:port") is a loopback address. An IPv4-mapped IPv6 address is judged
// as the IPv4 address it maps; a name, or an address without a port, is not
// a loopback peer.
func LoopbackPeer(remote string) bool {
	host, _, err := net.SplitHostPort(remote)
	if err != nil {
		return false
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}

// LoopbackHost reports whether host (a Host header) names the listener on
// port by one of its loopback names, port included.
func LoopbackHost(host, port string) bool {
	for _, h := range loopbackNames {
		if host == h+":"+port {
			return true
		}
	}
	return false
}

// LoopbackOrigin reports whether origin is http://NAME:port for one of the
// loopback names.
func LoopbackOrigin(origin, port string) bool {
	for _, h := range loopbackNames {
		if origin == "http://"+h+":"+port {
			return true
		}
	}
	return false
}

// ParsePublicURL parses dashboard.public_url: an absolute http or https URL
// with a host. ok is false for anything else.
func ParsePublicURL(raw string) (u *url.URL, ok bool) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, false
	}
	return u, true
}

// OriginOf is the origin of u as a browser sends it in Origin: scheme, "://"
// and host (with the port as written); no user, path, query or fragment.
func OriginOf(u *url.URL) string {
	return u.Scheme + "://" + u.Host
}

// PublicOrigin is the origin of dashboard.public_url, or "" when raw is not
// an http or https URL.
func PublicOrigin(raw string) string {
	u, ok := ParsePublicURL(raw)
	if !ok {
		return ""
	}
	return OriginOf(u)
}

// Policy is the Host and Origin allow-list of one listener: its loopback
// names with its port and, in gated mode, the public origin.
type Policy struct {
	port       string
	public     string // origin of public_url; "" unless gated
	publicHost string // host of public; "" when public is "" or has none
}

// NewPolicy is the policy of the listener on port; publicOrigin is the
// origin of public_url in gated mode and "" otherwise.
func NewPolicy(port, publicOrigin string) Policy {
	p := Policy{port: port, public: publicOrigin}
	if publicOrigin != "" {
		if u, err := url.Parse(publicOrigin); err == nil {
			p.publicHost = u.Host
		}
	}
	return p
}

// HostAllowed is the DNS-rebinding guard: host is a loopback name with the
// listener's port, or (gated) exactly the public host.
func (p Policy) HostAllowed(host string) bool {
	return LoopbackHost(host, p.port) || (p.publicHost != "" && host == p.publicHost)
}

// OriginAllowed reports whether origin is exactly one of the allow-list:
// a loopback http origin with the listener's port or (gated) the public
// origin. "" and "null" are never allowed.
func (p Policy) OriginAllowed(origin string) bool {
	return LoopbackOrigin(origin, p.port) || (p.public != "" && origin == p.public)
}
