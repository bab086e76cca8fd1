package metrics

import (
	"context"
	"maps"
	"os"
	"slices"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// StoreStats is what one store read on scrape reports.
type StoreStats struct {
	SessionsStored int            // logical sessions in the database
	Admissions     map[string]int // by status; terminal rows by their outcome
	JournalRows    int64          // rows of the session event journal
}

// AdmissionStatuses are reported on every scrape, at 0 when absent, so a
// series never disappears: the non-terminal states and the terminal
// outcomes (docs/protocol.md#execution).
var AdmissionStatuses = []string{
	"queued", "started", "unknown",
	"completed", "failed", "rejected", "interrupted", "cancelled",
}

// Sources are read on every scrape. A nil func leaves its metrics out.
type Sources struct {
	// Store reads the database counts (one read per scrape, bounded by
	// StoreTimeout).
	Store func(ctx context.Context) (StoreStats, error)
	// DBPath is state.db; its size and that of its -wal file are reported.
	DBPath string
	// LiveSessions is the number of sessions the authority holds live.
	LiveSessions func() int
	// WebSocketConns is the number of open WebSocket connections.
	WebSocketConns func() int
	// CutOffs is the number of viewers cut off with session.replay_gap so
	// far (monotonic).
	CutOffs func() int64
	// ChildProcesses counts running child processes by kind ("tool", and
	// "mcp" for MCP servers); kinds are a fixed set chosen by the caller.
	ChildProcesses func() map[string]int
}

// StoreTimeout bounds the store read of one scrape.
const StoreTimeout = 5 * time.Second

var (
	descSessionsLive   = desc("sessions_live", "Sessions held live by the authority (loaded, with an executor when they have work).")
	descSessionsStored = desc("sessions_stored", "Logical sessions stored in the database.")
	descAdmissions     = desc("admissions", "Admissions in the database by status (queued, started, unknown) or, once terminal, by outcome.", "status")
	descJournalRows    = desc("journal_rows", "Rows of the session event journal (session_events).")
	descDBBytes        = desc("database_bytes", "Size of the SQLite database files, by file (db, wal).", "file")
	descWSConns        = desc("websocket_connections", "Open WebSocket connections.")
	descCutOffs        = desc("viewer_cutoffs_total", "Viewers cut off with session.replay_gap because they fell behind.")
	descChildren       = desc("child_processes", "Running child processes by kind (tool; mcp for MCP servers).", "kind")
	descStoreErrors    = desc("metrics_store_errors_total", "Scrapes whose store read failed (the store gauges were left out of that scrape).")
)

func desc(name, help string, labels ...string) *prometheus.Desc {
	return prometheus.NewDesc(Namespace+"_"+name, help, labels, nil)
}

// scrapeCollector reads Sources on each Collect.
type scrapeCollector struct {
	src    Sources
	errors atomic.Int64 // failed store reads so far
}

func newScrapeCollector(src Sources) *scrapeCollector { return &scrapeCollector{src: src} }

func (c *scrapeCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descSessionsLive, descSessionsStored, descAdmissions,
		descJournalRows, descDBBytes, descWSConns, descCutOffs, descChildren, descStoreErrors} {
		ch <- d
	}
}

func (c *scrapeCollector) Collect(ch chan<- prometheus.Metric) {
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	if f := c.src.LiveSessions; f != nil {
		gauge(descSessionsLive, float64(f()))
	}
	if f := c.src.WebSocketConns; f != nil {
		gauge(descWSConns, float64(f()))
	}
	if f := c.src.CutOffs; f != nil {
		ch <- prometheus.MustNewConstMetric(descCutOffs, prometheus.CounterValue, float64(f()))
	}
	if f := c.src.ChildProcesses; f != nil {
		counts := f()
		for _, k := range slices.Sorted(maps.Keys(counts)) {
			gauge(descChildren, float64(counts[k]), k)
		}
	}
	if c.src.DBPath != "" {
		gauge(descDBBytes, fileSize(c.src.DBPath), "db")
		gauge(descDBBytes, fileSize(c.src.DBPath+"-wal"), "wal")
	}
	c.collectStore(ch, gauge)
}

func (c *scrapeCollector) collectStore(ch chan<- prometheus.Metric, gauge func(*prometheus.Desc, float64, ...string)) {
	if c.src.Store == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), StoreTimeout)
	defer cancel()
	st, err := c.src.Store(ctx)
	if err != nil {
		c.errors.Add(1)
	}
	ch <- prometheus.MustNewConstMetric(descStoreErrors, prometheus.CounterValue, float64(c.errors.Load()))
	if err != nil {
		return
	}
	gauge(descSessionsStored, float64(st.SessionsStored))
	gauge(descJournalRows, float64(st.JournalRows))
	statuses := slices.Clone(AdmissionStatuses)
	for s := range st.Admissions {
		if !slices.Contains(statuses, s) {
			statuses = append(statuses, s) // a CHECK-bounded enum: still a fixed set
		}
	}
	for _, s := range statuses {
		gauge(descAdmissions, float64(st.Admissions[s]), s)
	}
}

// fileSize is the size of path, 0 when it does not exist.
func fileSize(path string) float64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return float64(fi.Size())
}
