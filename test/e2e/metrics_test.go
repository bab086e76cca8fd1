package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	gt "github.com/hermes-gateway/hermes/internal/gatewaytest"
	mdl "github.com/hermes-gateway/hermes/internal/model"
	"github.com/hermes-gateway/hermes/internal/modeltest"
	"github.com/hermes-gateway/hermes/internal/protocol"
)

// TestMetricsAfterScriptedTurn: issue 14 item 1 through the real binary.
// One turn (a terminal call, then an answer) with usage the fake model
// reports; a scrape of metrics.listen parsed with the Prometheus text
// parser has the values that turn implies, and no label carries the
// prompt, the cwd or the session id.
func TestMetricsAfterScriptedTurn(t *testing.T) {
	t.Parallel()
	f := gt.NewFixture(t, gt.Config{Streaming: true, Extra: "metrics: {listen: \"127.0.0.1:0\"}\n"})
	const prompt = "Probe the metrics secret-prompt-text"
	u1 := &mdl.Usage{PromptTokens: 111, CompletionTokens: 7, TotalTokens: 118}
	u2 := &mdl.Usage{PromptTokens: 222, CompletionTokens: 9, TotalTokens: 231}
	call := modeltest.ToolCall("terminal", gt.TerminalArgs("echo metrics-probe"))
	call.Usage = u1
	answer := modeltest.Text("METRICS_DONE")
	answer.Usage = u2
	f.Turns.Set(prompt, call, answer)
	d := f.Start()
	addr := metricsAddr(t, f.Home)
	ctx := gt.Context(t, wait)
	v := d.View(ctx)
	dir := gt.Cwd(t)
	snap := gt.Create(t, v, protocol.SessionCreateParams{RequestID: gt.Ptr("metrics"), Cwd: &dir})
	rc := gt.Submit(t, v, snap.SessionID, "m1", prompt)
	if mc := gt.AwaitComplete(t, v, rc.AdmissionID, wait); mc.Outcome != protocol.OutcomeCompleted {
		t.Fatalf("turn outcome %q (%s), want completed", mc.Outcome, mc.Error)
	}

	raw := scrape(t, addr)
	fams := parse(t, raw)
	db := gt.OpenDB(t, f.Home)
	journal := gt.Count(t, db, "SELECT count(*) FROM session_events")
	checks := []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"hermes_admissions", map[string]string{"status": "completed"}, 1},
		{"hermes_admissions", map[string]string{"status": "queued"}, 0},
		{"hermes_sessions_stored", nil, 1},
		{"hermes_sessions_live", nil, 1},
		{"hermes_model_tokens_total", map[string]string{"kind": "prompt"}, float64(u1.PromptTokens + u2.PromptTokens)},
		{"hermes_model_tokens_total", map[string]string{"kind": "completion"}, float64(u1.CompletionTokens + u2.CompletionTokens)},
		{"hermes_model_request_duration_seconds", map[string]string{"outcome": "ok"}, 2},
		{"hermes_model_time_to_first_token_seconds", nil, 1}, // the tool-call round streams no text
		{"hermes_tool_call_duration_seconds", map[string]string{"tool": "terminal", "outcome": "ok"}, 1},
		{"hermes_turn_duration_seconds", map[string]string{"outcome": "completed"}, 1},
		{"hermes_websocket_connections", nil, 1},
		{"hermes_viewer_cutoffs_total", nil, 0},
		{"hermes_child_processes", map[string]string{"kind": "tool"}, 0},
		{"hermes_journal_rows", nil, float64(journal)},
	}
	for _, c := range checks {
		if got := sample(t, fams, c.name, c.labels); got != c.want {
			t.Errorf("%s%v = %v, want %v", c.name, c.labels, got, c.want)
		}
	}
	if got := sample(t, fams, "hermes_database_bytes", map[string]string{"file": "db"}); got <= 0 {
		t.Errorf("hermes_database_bytes{file=db} = %v, want > 0", got)
	}
	for _, name := range []string{"go_goroutines", "go_memstats_heap_alloc_bytes", "process_open_fds", "process_resident_memory_bytes"} {
		if _, ok := fams[name]; !ok {
			t.Errorf("no %s (Go runtime and process collectors)", name)
		}
	}
	for name, fam := range fams {
		for _, m := range fam.GetMetric() {
			for _, lp := range m.GetLabel() {
				if v := lp.GetValue(); strings.Contains(v, "secret-prompt") || strings.Contains(v, dir) || strings.Contains(v, snap.SessionID) {
					t.Errorf("%s carries user content in label %s=%q", name, lp.GetName(), v)
				}
			}
		}
	}
	promtool(t, raw)
}

// TestMetricsRemoteRefused: a non-loopback metrics.listen without
// metrics.allow_remote stops the daemon at start with a message that says
// what to set.
func TestMetricsRemoteRefused(t *testing.T) {
	t.Parallel()
	f := gt.NewFixture(t, gt.Config{Extra: "metrics: {listen: \"0.0.0.0:0\"}\n"})
	d := f.Launch()
	if code := d.Wait(); code == 0 {
		t.Fatalf("daemon with metrics.listen 0.0.0.0 exited %d, want a refusal", code)
	}
	if out := d.Output(); !strings.Contains(out, "metrics.listen") || !strings.Contains(out, "metrics.allow_remote: true") {
		t.Errorf("refusal does not say what to do:\n%s", out)
	}
}

// metricsAddr reads the address the daemon logged for its metrics listener.
func metricsAddr(t *testing.T, home string) string {
	t.Helper()
	var addr string
	gt.Await(t, wait, func() bool {
		b, _ := os.ReadFile(filepath.Join(home, "logs", "gateway.log"))
		sc := bufio.NewScanner(bytes.NewReader(b))
		for sc.Scan() {
			var rec struct{ Msg, Addr string }
			if json.Unmarshal(sc.Bytes(), &rec) == nil && rec.Msg == "metrics listening" {
				addr = rec.Addr
				return true
			}
		}
		return false
	})
	return addr
}

func scrape(t *testing.T, addr string) []byte {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, "http://"+addr+"/metrics", nil)
	req.Header.Set("Accept", "text/plain; version=0.0.4")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("scrape: %v", err)
	}
	defer res.Body.Close()
	var b bytes.Buffer
	if _, err := b.ReadFrom(res.Body); err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("scrape: HTTP %d, %v", res.StatusCode, err)
	}
	if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
		t.Errorf("Content-Type %q, want the text format", ct)
	}
	return b.Bytes()
}

func parse(t *testing.T, raw []byte) map[string]*dto.MetricFamily {
	t.Helper()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("parse scrape: %v", err)
	}
	return fams
}

// sample is the value of name{labels} (a histogram's sample count).
func sample(t *testing.T, fams map[string]*dto.MetricFamily, name string, labels map[string]string) float64 {
	t.Helper()
	fam, ok := fams[name]
	if !ok {
		t.Fatalf("no metric family %s", name)
	}
next:
	for _, m := range fam.GetMetric() {
		if len(m.GetLabel()) != len(labels) {
			continue
		}
		for _, lp := range m.GetLabel() {
			if labels[lp.GetName()] != lp.GetValue() {
				continue next
			}
		}
		switch {
		case m.Histogram != nil:
			return float64(m.GetHistogram().GetSampleCount())
		case m.Counter != nil:
			return m.GetCounter().GetValue()
		default:
			return m.GetGauge().GetValue()
		}
	}
	t.Fatalf("no sample %s%v", name, labels)
	return 0
}

// promtool lints the scrape where promtool is installed (apt: prometheus).
func promtool(t *testing.T, raw []byte) {
	t.Helper()
	bin, err := exec.LookPath("promtool")
	if err != nil {
		t.Log("promtool not installed; lint skipped")
		return
	}
	cmd := exec.Command(bin, "check", "metrics")
	cmd.Stdin = bytes.NewReader(raw)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("promtool check metrics: %v\n%s", err, out)
	}
}
