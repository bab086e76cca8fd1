package config

import (
	"fmt"
	"net"
	"strings"
)

// Metrics configures the Prometheus endpoint (GET /metrics on a listener
// of its own).
type Metrics struct {
	// Listen is host:port of the metrics listener; "" = no endpoint.
	Listen string `yaml:"listen" want:"host:port"`
	// AllowRemote accepts a Listen address that is not loopback; off, only
	// 127.0.0.0/8, ::1 or localhost. The endpoint has no authentication.
	AllowRemote bool `yaml:"allow_remote"`
}

// Logging configures logs/gateway.log.
type Logging struct {
	// MaxMB: the log rotates (gateway.log → gateway.log.1 → …) before a
	// write would take it past this many MiB.
	MaxMB int `yaml:"max_mb" want:"a positive integer"`
	// Keep is how many rotated files are kept (0 = none: the log starts
	// over when full).
	Keep int `yaml:"keep" want:"a non-negative integer"`
}

// validateOperability checks metrics.*, logging.* and pricing.*.
func (c Config) validateOperability() error {
	checks := []struct {
		ok          bool
		path, wants string
	}{
		{c.Metrics.Listen == "" || validListen(c.Metrics.Listen), "metrics.listen",
			"host:port with a port in 0..65535, or empty (no endpoint)"},
		{c.Metrics.Listen == "" || c.Metrics.AllowRemote || loopbackListen(c.Metrics.Listen), "metrics.listen",
			"a loopback address (127.0.0.1:9464, [::1]:9464 or localhost:9464): the endpoint has no authentication; " +
				"set metrics.allow_remote: true to serve other interfaces"},
		{c.Logging.MaxMB > 0, "logging.max_mb", "a positive integer"},
		{c.Logging.Keep >= 0, "logging.keep", "a non-negative integer"},
	}
	for _, ch := range checks {
		if !ch.ok {
			return fmt.Errorf("%s: want %s", ch.path, ch.wants)
		}
	}
	return c.validateUsage()
}

// loopbackListen: host:port whose host is a loopback IP or localhost (an
// empty host binds every interface).
func loopbackListen(s string) bool {
	host, _, err := net.SplitHostPort(s)
	if err != nil {
		return false
	}
	h := strings.ToLower(strings.TrimSuffix(host, "."))
	ip := net.ParseIP(h)
	return h == "localhost" || (ip != nil && ip.IsLoopback())
}
