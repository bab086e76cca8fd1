package metrics

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// ErrRemote is returned by Listen for an address that is not loopback when
// remote scrapes were not allowed (metrics.allow_remote).
var ErrRemote = errors.New("metrics.listen is not a loopback address; listen on 127.0.0.1 or [::1], or set metrics.allow_remote: true")

// IsLoopback reports whether addr (host:port) binds only loopback
// interfaces: a loopback IP or "localhost". An empty host ("":9090) binds
// every interface and is not loopback.
func IsLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	h := strings.ToLower(strings.TrimSuffix(host, "."))
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// Listen opens the metrics listener on addr, refusing a non-loopback
// address unless allowRemote (ErrRemote, before anything is bound).
func Listen(addr string, allowRemote bool) (net.Listener, error) {
	if !allowRemote && !IsLoopback(addr) {
		return nil, fmt.Errorf("%s: %w", addr, ErrRemote)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("metrics listener %s: %w", addr, err)
	}
	return ln, nil
}

// Handler serves the registry in the Prometheus text format (or
// OpenMetrics when the scraper asks). A failing collector is logged and
// the rest is still served.
func (m *Metrics) Handler(log *slog.Logger) http.Handler {
	opts := promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError, Timeout: StoreTimeout + 5*time.Second}
	if log != nil {
		opts.ErrorLog = slogPrinter{log}
	}
	return promhttp.HandlerFor(m.reg, opts)
}

// Serve answers GET /metrics on ln until ctx ends, then closes ln and
// returns after the in-flight scrapes (nil on that graceful stop). Every
// other path is 404: the listener serves nothing else.
func (m *Metrics) Serve(ctx context.Context, ln net.Listener, log *slog.Logger) error {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", m.Handler(log))
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second, WriteTimeout: 30 * time.Second}
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		return fmt.Errorf("metrics listener: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = hs.Shutdown(sctx)
	if err := <-done; !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("metrics listener: %w", err)
	}
	return nil
}

// slogPrinter adapts slog to promhttp's Logger.
type slogPrinter struct{ log *slog.Logger }

func (p slogPrinter) Println(v ...any) {
	p.log.Warn("metrics: " + strings.TrimSpace(fmt.Sprintln(v...)))
}
