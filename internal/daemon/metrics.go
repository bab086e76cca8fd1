package daemon

import (
	"context"
	"path/filepath"

	"github.com/hermes-gateway/hermes/internal/authority"
	"github.com/hermes-gateway/hermes/internal/metrics"
)

// newMetrics makes the registry; the scrape-time sources read the daemon's
// parts, which exist once start has run (scrapes begin in serve).
func (d *daemon) newMetrics() {
	d.metrics = metrics.New(metrics.Sources{
		Store: func(ctx context.Context) (metrics.StoreStats, error) {
			st, err := d.st.Stats(ctx)
			return metrics.StoreStats{SessionsStored: st.SessionsStored, Admissions: st.Admissions, JournalRows: st.JournalRows}, err
		},
		DBPath:         filepath.Join(d.home, "state.db"),
		LiveSessions:   func() int { return d.auth.LiveSessions() },
		WebSocketConns: func() int { return d.srv.WebSocketConns() },
		CutOffs:        func() int64 { return d.hub.CutOffs() },
		ChildProcesses: func() map[string]int { return map[string]int{"tool": d.procs.count()} },
	})
}

// observer is what the authority reports to.
func (d *daemon) observer() authority.Observer { return d.metrics }

// listenMetrics opens metrics.listen when it is set ("" = no endpoint).
// A non-loopback address without metrics.allow_remote never gets here:
// config validation refuses it; Listen checks again.
func (d *daemon) listenMetrics() error {
	addr := d.cfg.Metrics.Listen
	if addr == "" {
		return nil
	}
	ln, err := metrics.Listen(addr, d.cfg.Metrics.AllowRemote)
	if err != nil {
		return exitf(ExitRuntime, "%v (metrics.listen in config.yaml)", err)
	}
	d.metricsLn = ln
	d.log.Info("metrics listening", "addr", ln.Addr().String())
	return nil
}

// serveMetrics answers scrapes until ctx ends; without a listener it just
// waits, so serve's errgroup treats both cases alike.
func (d *daemon) serveMetrics(ctx context.Context) error {
	if d.metricsLn == nil {
		<-ctx.Done()
		return nil
	}
	return d.metrics.Serve(ctx, d.metricsLn, d.log)
}

// count is the number of tool processes running now.
func (p *procTracker) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.pids)
}
