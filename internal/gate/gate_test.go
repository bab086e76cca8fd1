package gate

import (
	"net/url"
	"testing"
)

func TestLoopbackPeer(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		remote string
		want   bool
	}{
		{"127.0.0.1:5000", true},
		{"127.0.0.2:5000", true}, // all of 127/8 is loopback
		{"127.255.255.254:1", true},
		{"[::1]:5000", true},
		{"[::ffff:127.0.0.1]:5000", true}, // IPv4-mapped: judged as the IPv4 address
		{"[::ffff:7f00:1]:5000", true},
		{"[0:0:0:0:0:0:0:1]:5000", true},
		{"[::ffff:10.0.0.1]:5000", false},
		{"10.0.0.1:5000", false},
		{"0.0.0.0:5000", false},
		{"[::]:5000", false},
		{"[::2]:5000", false},
		{"[fe80::1]:5000", false},
		{"192.168.1.10:5000", false},
		{"localhost:5000", false}, // a name is not an address
		{"127.0.0.1", false},      // no port: not a RemoteAddr
		{"::1", false},
		{"[::1]", false},
		{"", false},
		{"127.0.0.1.evil.example:5000", false},
	} {
		if got := LoopbackPeer(c.remote); got != c.want {
			t.Errorf("LoopbackPeer(%q) = %v, want %v", c.remote, got, c.want)
		}
	}
}

func TestHostAllowed(t *testing.T) {
	t.Parallel()
	local := NewPolicy("8642", "")
	gated := NewPolicy("8642", "https://h.example.com")
	gatedPort := NewPolicy("8642", "https://h.example.com:8443")
	for _, c := range []struct {
		name string
		p    Policy
		host string
		want bool
	}{
		{"ipv4", local, "127.0.0.1:8642", true},
		{"localhost", local, "localhost:8642", true},
		{"ipv6 bracketed", local, "[::1]:8642", true},
		{"ipv6 unbracketed", local, "::1:8642", false},
		{"ipv6 without port", local, "[::1]", false},
		{"no port", local, "127.0.0.1", false},
		{"localhost no port", local, "localhost", false},
		{"other port", local, "127.0.0.1:1", false},
		{"empty port", local, "127.0.0.1:", false},
		{"port suffix", local, "127.0.0.1:86420", false},
		{"upper case", local, "LOCALHOST:8642", false}, // exact, no case folding
		{"mixed case", local, "LocalHost:8642", false},
		{"trailing dot", local, "localhost.:8642", false},
		{"other loopback", local, "127.0.0.2:8642", false},
		{"mapped", local, "[::ffff:127.0.0.1]:8642", false},
		{"unspecified", local, "0.0.0.0:8642", false},
		{"rebinding name", local, "attacker.example:8642", false},
		{"suffix name", local, "localhost.attacker.example:8642", false},
		{"nip.io", local, "127.0.0.1.nip.io:8642", false},
		{"empty", local, "", false},
		{"public host when not gated", local, "h.example.com", false},
		{"gated loopback", gated, "127.0.0.1:8642", true},
		{"gated public", gated, "h.example.com", true},
		{"gated public with default port", gated, "h.example.com:443", false},
		{"gated public upper case", gated, "H.EXAMPLE.COM", false},
		{"gated public with our port", gated, "h.example.com:8642", false},
		{"gated public suffix", gated, "h.example.com.evil", false},
		{"gated empty", gated, "", false},
		{"gated public port", gatedPort, "h.example.com:8443", true},
		{"gated public port missing", gatedPort, "h.example.com", false},
	} {
		if got := c.p.HostAllowed(c.host); got != c.want {
			t.Errorf("%s: HostAllowed(%q) = %v, want %v", c.name, c.host, got, c.want)
		}
	}
}

func TestOriginAllowed(t *testing.T) {
	t.Parallel()
	local := NewPolicy("8642", "")
	gated := NewPolicy("8642", "https://h.example.com")
	port80 := NewPolicy("80", "")
	for _, c := range []struct {
		name   string
		p      Policy
		origin string
		want   bool
	}{
		{"ipv4", local, "http://127.0.0.1:8642", true},
		{"localhost", local, "http://localhost:8642", true},
		{"ipv6", local, "http://[::1]:8642", true},
		{"empty", local, "", false},
		{"null", local, "null", false},
		{"trailing slash", local, "http://127.0.0.1:8642/", false},
		{"path", local, "http://127.0.0.1:8642/app", false},
		{"https", local, "https://127.0.0.1:8642", false},
		{"ws scheme", local, "ws://127.0.0.1:8642", false},
		{"upper-case scheme", local, "HTTP://127.0.0.1:8642", false},
		{"upper-case host", local, "http://LOCALHOST:8642", false},
		{"no port", local, "http://127.0.0.1", false},
		{"other port", local, "http://127.0.0.1:1", false},
		{"ipv6 unbracketed", local, "http://::1:8642", false},
		{"userinfo", local, "http://u@127.0.0.1:8642", false},
		{"suffix host", local, "http://127.0.0.1.evil.com:8642", false},
		{"port suffix", local, "http://localhost:8642.evil.example", false},
		{"bare host", local, "127.0.0.1:8642", false},
		{"public when not gated", local, "https://h.example.com", false},
		// A browser omits a default port from Origin; the list does not add it back.
		{"default port omitted", port80, "http://127.0.0.1", false},
		{"default port written", port80, "http://127.0.0.1:80", true},
		{"gated loopback", gated, "http://localhost:8642", true},
		{"gated public", gated, "https://h.example.com", true},
		{"gated public trailing slash", gated, "https://h.example.com/", false},
		{"gated public default port", gated, "https://h.example.com:443", false},
		{"gated public http", gated, "http://h.example.com", false},
		{"gated public upper case", gated, "https://H.example.com", false},
		{"gated null", gated, "null", false},
		{"gated empty", gated, "", false},
	} {
		if got := c.p.OriginAllowed(c.origin); got != c.want {
			t.Errorf("%s: OriginAllowed(%q) = %v, want %v", c.name, c.origin, got, c.want)
		}
	}
}

func TestLoopbackHostIsNotThePublicHost(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		host string
		want bool
	}{
		{"127.0.0.1:8642", true},
		{"localhost:8642", true},
		{"[::1]:8642", true},
		{"h.example.com", false},
		{"LOCALHOST:8642", false},
		{"[::1]", false},
		{"localhost:8643", false},
	} {
		if got := LoopbackHost(c.host, "8642"); got != c.want {
			t.Errorf("LoopbackHost(%q) = %v, want %v", c.host, got, c.want)
		}
	}
}

func TestPublicOrigin(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		raw, origin, host string
	}{
		{"https://h.example.com", "https://h.example.com", "h.example.com"},
		{"https://h.example.com/", "https://h.example.com", "h.example.com"},
		{"https://h.example.com/hermes/", "https://h.example.com", "h.example.com"},
		{"https://h.example.com:8443/x?y=1#z", "https://h.example.com:8443", "h.example.com:8443"},
		{"https://h.example.com:443", "https://h.example.com:443", "h.example.com:443"}, // port kept as written
		{"http://[2001:db8::1]:8080/", "http://[2001:db8::1]:8080", "[2001:db8::1]:8080"},
		{"https://h.example.com?q", "https://h.example.com", "h.example.com"},
		{"HTTPS://H.example.com/", "https://H.example.com", "H.example.com"}, // scheme lowered, host as written
		{"", "", ""},
		{"h.example.com", "", ""},
		{"//h.example.com", "", ""},
		{"ftp://h.example.com", "", ""},
		{"https://", "", ""},
		{"https:///path", "", ""},
		{"https://h.example.com:bad", "", ""},
	} {
		if got := PublicOrigin(c.raw); got != c.origin {
			t.Errorf("PublicOrigin(%q) = %q, want %q", c.raw, got, c.origin)
		}
		u, ok := ParsePublicURL(c.raw)
		if ok != (c.origin != "") {
			t.Errorf("ParsePublicURL(%q) ok = %v", c.raw, ok)
			continue
		}
		if ok && (OriginOf(u) != c.origin || u.Host != c.host) {
			t.Errorf("ParsePublicURL(%q): origin %q host %q, want %q %q", c.raw, OriginOf(u), u.Host, c.origin, c.host)
		}
		// The policy made from that origin allows exactly its host and origin.
		if c.origin != "" {
			p := NewPolicy("8642", c.origin)
			if !p.HostAllowed(c.host) || !p.OriginAllowed(c.origin) {
				t.Errorf("NewPolicy(%q) refuses its own host %q or origin", c.origin, c.host)
			}
		}
	}
}

func TestOriginOfDropsUserPathQuery(t *testing.T) {
	t.Parallel()
	u := &url.URL{Scheme: "https", User: url.User("u"), Host: "h.example.com", Path: "/p", RawQuery: "q=1", Fragment: "f"}
	if got := OriginOf(u); got != "https://h.example.com" {
		t.Errorf("OriginOf = %q", got)
	}
}
