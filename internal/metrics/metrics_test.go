package metrics

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// Scrape fetches url and parses the Prometheus text format.
func Scrape(t testing.TB, h http.Handler) map[string]*dto.MetricFamily {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
	req.Header.Set("Accept", "text/plain; version=0.0.4")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		t.Fatalf("scrape: HTTP %d: %s", rec.Code, rec.Body)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(rec.Body)
	if err != nil {
		t.Fatalf("parse scrape: %v", err)
	}
	return fams
}

// value is the value of the sample of family name whose labels are labels.
func value(t testing.TB, fams map[string]*dto.MetricFamily, name string, labels map[string]string) float64 {
	t.Helper()
	f, ok := fams[name]
	if !ok {
		t.Fatalf("no family %s", name)
	}
next:
	for _, m := range f.GetMetric() {
		got := map[string]string{}
		for _, lp := range m.GetLabel() {
			got[lp.GetName()] = lp.GetValue()
		}
		if len(got) != len(labels) {
			continue
		}
		for k, v := range labels {
			if got[k] != v {
				continue next
			}
		}
		switch {
		case m.Gauge != nil:
			return m.GetGauge().GetValue()
		case m.Counter != nil:
			return m.GetCounter().GetValue()
		case m.Histogram != nil:
			return float64(m.GetHistogram().GetSampleCount())
		}
	}
	t.Fatalf("%s%v: no such sample", name, labels)
	return 0
}

func TestObserverAndScrapeSources(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "state.db")
	if err := os.WriteFile(db, make([]byte, 4096), 0o600); err != nil {
		t.Fatal(err)
	}
	m := New(Sources{
		Store: func(context.Context) (StoreStats, error) {
			return StoreStats{SessionsStored: 3, Admissions: map[string]int{"completed": 2, "queued": 1}, JournalRows: 17}, nil
		},
		DBPath:         db,
		LiveSessions:   func() int { return 2 },
		WebSocketConns: func() int { return 4 },
		CutOffs:        func() int64 { return 5 },
		ChildProcesses: func() map[string]int { return map[string]int{"tool": 1} },
	})
	m.TurnDone("completed", 2*time.Second)
	m.ModelRequest("ok", time.Second, 100*time.Millisecond, 120, 30)
	m.ModelRequest("ok", time.Second, -1, 10, 0)
	m.ToolDone("terminal", "ok", 50*time.Millisecond)
	m.PromptOpened("approval")
	m.PromptOpened("approval")
	m.PromptClosed("approval", "answered", 3*time.Second)
	var nilM *Metrics
	nilM.TurnDone("completed", time.Second) // a nil *Metrics is a no-op

	fams := Scrape(t, m.Handler(nil))
	checks := []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"hermes_turn_duration_seconds", map[string]string{"outcome": "completed"}, 1},
		{"hermes_model_request_duration_seconds", map[string]string{"outcome": "ok"}, 2},
		{"hermes_model_time_to_first_token_seconds", nil, 1},
		{"hermes_model_tokens_total", map[string]string{"kind": "prompt"}, 130},
		{"hermes_model_tokens_total", map[string]string{"kind": "completion"}, 30},
		{"hermes_tool_call_duration_seconds", map[string]string{"tool": "terminal", "outcome": "ok"}, 1},
		{"hermes_approvals_pending", map[string]string{"kind": "approval"}, 1},
		{"hermes_approval_wait_seconds", map[string]string{"kind": "approval", "outcome": "answered"}, 1},
		{"hermes_sessions_live", nil, 2},
		{"hermes_sessions_stored", nil, 3},
		{"hermes_admissions", map[string]string{"status": "completed"}, 2},
		{"hermes_admissions", map[string]string{"status": "queued"}, 1},
		{"hermes_admissions", map[string]string{"status": "unknown"}, 0},
		{"hermes_journal_rows", nil, 17},
		{"hermes_database_bytes", map[string]string{"file": "db"}, 4096},
		{"hermes_database_bytes", map[string]string{"file": "wal"}, 0},
		{"hermes_websocket_connections", nil, 4},
		{"hermes_viewer_cutoffs_total", nil, 5},
		{"hermes_child_processes", map[string]string{"kind": "tool"}, 1},
		{"hermes_metrics_store_errors_total", nil, 0},
	}
	for _, c := range checks {
		if got := value(t, fams, c.name, c.labels); got != c.want {
			t.Errorf("%s%v = %v, want %v", c.name, c.labels, got, c.want)
		}
	}
	for _, name := range []string{"go_goroutines", "process_resident_memory_bytes"} {
		if _, ok := fams[name]; !ok {
			t.Errorf("no %s: the Go runtime and process collectors are registered", name)
		}
	}
}

func TestStoreErrorLeavesOutStoreGauges(t *testing.T) {
	t.Parallel()
	m := New(Sources{Store: func(context.Context) (StoreStats, error) { return StoreStats{}, errors.New("disk gone") }})
	fams := Scrape(t, m.Handler(nil))
	if _, ok := fams["hermes_sessions_stored"]; ok {
		t.Error("hermes_sessions_stored served from a failed read")
	}
	if got := value(t, fams, "hermes_metrics_store_errors_total", nil); got != 1 {
		t.Errorf("store errors %v, want 1", got)
	}
}

func TestListenLoopbackOnly(t *testing.T) {
	t.Parallel()
	for _, addr := range []string{"0.0.0.0:0", ":0", "[::]:0", "192.0.2.1:9464"} {
		if _, err := Listen(addr, false); !errors.Is(err, ErrRemote) {
			t.Errorf("Listen(%s) without allow_remote: %v, want ErrRemote", addr, err)
		}
	}
	for _, addr := range []string{"127.0.0.1:0", "localhost:0"} {
		if !IsLoopback(addr) {
			t.Errorf("IsLoopback(%s) = false", addr)
		}
	}
	ln, err := Listen("0.0.0.0:0", true)
	if err != nil {
		t.Fatalf("allow_remote: %v", err)
	}
	_ = ln.Close()
}

// TestServeOnlyMetrics: Serve answers /metrics, 404 elsewhere, and returns
// nil once ctx ends.
func TestServeOnlyMetrics(t *testing.T) {
	t.Parallel()
	m := New(Sources{})
	ln, err := Listen("127.0.0.1:0", false)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Serve(ctx, ln, nil) }()
	base := "http://" + ln.Addr().String()
	for path, want := range map[string]int{"/metrics": 200, "/": 404, "/debug/pprof/": 404} {
		res, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		_ = res.Body.Close()
		if res.StatusCode != want {
			t.Errorf("GET %s: %d, want %d", path, res.StatusCode, want)
		}
	}
	http.DefaultClient.CloseIdleConnections()
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Serve after ctx end: %v", err)
	}
}
