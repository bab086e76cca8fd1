package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-gateway/hermes/internal/gatewaytest"
)

// gateway start/status/stop through the binary: start waits for ready and
// is idempotent, status is readable and --json is data, stop ends the
// daemon, and status then says stopped with exit 3.
func TestGatewayStartStatusStop(t *testing.T) {
	t.Parallel()
	f := gatewaytest.NewFixture(t, gatewaytest.Config{})
	t.Cleanup(func() { hermes(t, f, "", "gateway", "stop") })
	if r := hermes(t, f, "", "gateway", "start"); r.code != 0 || !strings.Contains(r.out, "gateway started (pid ") {
		t.Fatalf("start: %d %q %q", r.code, r.out, r.err)
	}
	if r := hermes(t, f, "", "gateway", "start"); r.code != 0 || !strings.Contains(r.out, "already running") {
		t.Fatalf("second start: %d %q", r.code, r.out)
	}
	r := hermes(t, f, "", "gateway", "status")
	for _, want := range []string{"state:    ready", "pid:", "epoch:", "listener: http://127.0.0.1:", "0 queued, 0 running, 0 unknown"} {
		if !strings.Contains(r.out, want) {
			t.Errorf("status lacks %q:\n%s", want, r.out)
		}
	}
	var st map[string]any
	if r := hermes(t, f, "", "gateway", "status", "--json"); r.code != 0 || json.Unmarshal([]byte(r.out), &st) != nil || st["state"] != "ready" {
		t.Fatalf("status --json: %d %q", r.code, r.out)
	}
	if _, ok := st["admissions_unknown"]; !ok {
		t.Errorf("status --json lacks the counts: %v", st)
	}
	log, _ := os.ReadFile(filepath.Join(f.Home, "logs", "gateway.log"))
	if !strings.Contains(string(log), `"msg":"gateway ready"`) {
		t.Errorf("the detached daemon did not log to logs/gateway.log:\n%s", log)
	}
	if r := hermes(t, f, "", "gateway", "stop"); r.code != 0 || !strings.Contains(r.out, "gateway stopped") {
		t.Fatalf("stop: %d %q %q", r.code, r.out, r.err)
	}
	if r := hermes(t, f, "", "gateway", "status"); r.code != 3 || !strings.Contains(r.out, "stopped") {
		t.Fatalf("status after stop: %d %q", r.code, r.out)
	}
	if r := hermes(t, f, "", "gateway", "stop"); r.code != 0 || !strings.Contains(r.out, "no gateway is running") {
		t.Fatalf("second stop: %d %q", r.code, r.out)
	}
}

func TestVersionAndUsage(t *testing.T) {
	t.Parallel()
	f := gatewaytest.NewFixture(t, gatewaytest.Config{})
	if r := hermes(t, f, "", "version"); r.code != 0 || !strings.HasPrefix(r.out, "hermes ") || !strings.Contains(r.out, "go1.") {
		t.Fatalf("version: %d %q", r.code, r.out)
	}
	for _, args := range [][]string{{}, {"frobnicate"}, {"gateway"}, {"gateway", "fly"}} {
		if r := hermes(t, f, "", args...); r.code != 2 || r.err == "" {
			t.Errorf("%v: code %d, stderr %q; want 2 and a message", args, r.code, r.err)
		}
	}
}
