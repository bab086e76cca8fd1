package dashboard_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDashboardEscapesSpoofing (issue 10 item 5) runs visible.mjs: the
// dashboard's dom.js shows control and bidi characters of commands, titles
// and tool output escaped. Needs node only (no browser).
func TestDashboardEscapesSpoofing(t *testing.T) {
	t.Parallel()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	out, err := exec.Command(node, "visible.mjs").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "VISIBLE OK") {
		t.Fatalf("visible.mjs: %v\n%s", err, out)
	}
}
