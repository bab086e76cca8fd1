package cli_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/hermes-gateway/hermes/internal/gatewaytest"
)

// gateway status says which sandbox tools run in: the mode, the level this
// machine builds and the Landlock ABI, with a warning when there is none;
// --json carries the same fields.
func TestGatewayStatusShowsSandbox(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ extra, mode string }{
		{"", "auto"},
		{"sandbox: {mode: \"off\"}\n", "off"},
	} {
		f := gatewaytest.NewFixture(t, gatewaytest.Config{Extra: c.extra})
		f.Start()
		var st struct {
			Mode  string `json:"sandbox_mode"`
			Level string `json:"sandbox_level"`
			ABI   *int   `json:"landlock_abi"`
		}
		r := hermes(t, f, "", "gateway", "status", "--json")
		if r.code != 0 || json.Unmarshal([]byte(r.out), &st) != nil || st.Mode != c.mode || st.Level == "" || st.ABI == nil {
			t.Fatalf("mode %s: status --json: %d %q", c.mode, r.code, r.out)
		}
		abi := "no Landlock"
		if *st.ABI > 0 {
			abi = fmt.Sprintf("landlock ABI %d", *st.ABI)
		}
		want := fmt.Sprintf("sandbox:  %s (%s, %s)\n", c.mode, st.Level, abi)
		r = hermes(t, f, "", "gateway", "status")
		if r.code != 0 || !strings.Contains(r.out, want) {
			t.Errorf("mode %s: status lacks %q:\n%s", c.mode, want, r.out)
		}
		if warned := strings.Contains(r.out, "WARNING:  tool processes run without a sandbox"); warned != (st.Level == "none") {
			t.Errorf("mode %s, level %s: warning shown %t:\n%s", c.mode, st.Level, warned, r.out)
		}
		if c.mode == "off" && st.Level != "none" {
			t.Errorf("mode off reports level %q, want none", st.Level)
		}
	}
}
