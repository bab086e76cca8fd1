package daemon

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hermes-gateway/hermes/internal/protocol"
)

// runtime.describe says what the tool sandbox enforces: the configured mode,
// the level this machine builds, the Landlock ABI and the default network.
// sandbox.mode off is reported as level none, which clients show as a
// warning.
func TestDescribeShowsSandbox(t *testing.T) {
	t.Parallel()
	levels := map[string]bool{protocol.SandboxLevelFull: true, protocol.SandboxLevelLandlock: true, protocol.SandboxLevelNone: true}
	for _, c := range []struct {
		config  string
		mode    string
		network string
	}{
		{"", "auto", "on"},
		{"sandbox: {mode: \"off\", network: \"off\"}\n", "off", "off"},
	} {
		d := startTest(t, c.config)
		desc, err := d.connect().Describe(ctxT(t))
		if err != nil {
			t.Fatal(err)
		}
		s := desc.Sandbox
		if s == nil {
			t.Fatalf("config %q: runtime.describe has no sandbox", c.config)
		}
		if s.Mode != c.mode || s.Network != c.network || !levels[s.Level] || s.LandlockABI < 0 {
			t.Errorf("config %q: sandbox %+v, want mode %s, network %s and a known level", c.config, *s, c.mode, c.network)
		}
		if c.mode == "off" {
			if d := cmp.Diff(protocol.SandboxInfo{Mode: "off", Level: protocol.SandboxLevelNone, Network: "off"}, *s); d != "" {
				t.Errorf("mode off (-want +got):\n%s", d)
			}
		}
		if s.Level == protocol.SandboxLevelNone && s.LandlockABI != 0 {
			t.Errorf("level none with Landlock ABI %d", s.LandlockABI)
		}
	}
}
