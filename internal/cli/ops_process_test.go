package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-gateway/hermes/internal/gatewaytest"
)

// TestDoctorCommand: the report's exit code is its verdict, and a broken
// home fails its check with a fix.
func TestDoctorCommand(t *testing.T) {
	t.Parallel()
	f := gatewaytest.NewFixture(t, gatewaytest.Config{})
	r := hermes(t, f, "", "doctor", "--offline", "--json")
	var rep struct {
		OK     bool `json:"ok"`
		Checks []struct {
			Name string `json:"name"`
			OK   bool   `json:"ok"`
			Fix  string `json:"fix"`
		} `json:"checks"`
	}
	if err := json.Unmarshal([]byte(r.out), &rep); err != nil || len(rep.Checks) == 0 {
		t.Fatalf("doctor --json: %v %q %q", err, r.out, r.err)
	}
	if (r.code == 0) != rep.OK || (r.code != 0 && r.code != 1) {
		t.Fatalf("exit %d with ok %v", r.code, rep.OK)
	}
	if err := os.Chmod(f.Home, 0o777); err != nil {
		t.Fatal(err)
	}
	bad := hermes(t, f, "", "doctor", "--offline")
	if bad.code != 1 || !strings.Contains(bad.out, "FAIL  home") || !strings.Contains(bad.out, "fix:") {
		t.Fatalf("doctor on a world-writable home: %d\n%s%s", bad.code, bad.out, bad.err)
	}
}

func TestGatewayLogsAndMCPList(t *testing.T) {
	t.Parallel()
	f := gatewaytest.NewFixture(t, gatewaytest.Config{})
	if r := hermes(t, f, "", "gateway", "logs"); r.code != 1 || !strings.Contains(r.err, "no log at") {
		t.Fatalf("logs before any start: %d %q", r.code, r.err)
	}
	if r := hermes(t, f, "", "mcp", "list"); r.code != 3 {
		t.Fatalf("mcp list without a gateway: %d %q", r.code, r.err)
	}
	if r := hermes(t, f, "", "gateway", "start"); r.code != 0 {
		t.Fatalf("start: %d %q", r.code, r.err)
	}
	t.Cleanup(func() { hermes(t, f, "", "gateway", "stop") })
	logs := hermes(t, f, "", "gateway", "logs", "-n", "50")
	if logs.code != 0 || !strings.Contains(logs.out, `"msg":"gateway ready"`) {
		t.Fatalf("logs: %d %q %q", logs.code, logs.out, logs.err)
	}
	if _, err := os.Stat(filepath.Join(f.Home, "logs", "gateway.log")); err != nil {
		t.Fatal(err)
	}
	mcp := hermes(t, f, "", "mcp", "list")
	if mcp.code != 0 || !strings.Contains(mcp.out, "no MCP servers") {
		t.Fatalf("mcp list: %d %q %q", mcp.code, mcp.out, mcp.err)
	}
}
