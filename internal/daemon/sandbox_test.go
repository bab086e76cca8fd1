package daemon

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hermes-gateway/hermes/internal/config"
	"github.com/hermes-gateway/hermes/internal/sandbox"
	"github.com/hermes-gateway/hermes/internal/session"
)

// TestSafeModeSandboxNeverWeaker: safe_mode sessions take the code
// defaults' sandbox, but keep the profile's strict mode, its network off
// and its hidden paths; they never gain its writable roots.
func TestSafeModeSandboxNeverWeaker(t *testing.T) {
	t.Parallel()
	code := sandboxSettings(config.Defaults().Sandbox)
	tests := []struct {
		name    string
		profile session.SandboxPolicy
		want    session.SandboxPolicy
	}{
		{"defaults", code, session.SandboxPolicy{Mode: "auto", Network: true, WritableRoots: []string{}, HiddenPaths: append(append([]string{}, code.HiddenPaths...), code.HiddenPaths...)}},
		{"strict, no network, roots", session.SandboxPolicy{Mode: "strict", Network: false, WritableRoots: []string{"/data"}, HiddenPaths: []string{"/secret"}},
			session.SandboxPolicy{Mode: "strict", Network: false, WritableRoots: []string{}, HiddenPaths: append(append([]string{}, code.HiddenPaths...), "/secret")}},
		{"off is not inherited", session.SandboxPolicy{Mode: "off", Network: true},
			session.SandboxPolicy{Mode: "auto", Network: true, WritableRoots: []string{}, HiddenPaths: code.HiddenPaths}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(&tt.want, safeModeSandbox(code, tt.profile)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestLaunchersUnknownModeIsStrict(t *testing.T) {
	t.Parallel()
	l := newLaunchers("/nonexistent/hermes")
	if got := l.For("bogus").Status().Mode; got != sandbox.ModeStrict {
		t.Fatalf("unknown mode got a %q launcher, want strict", got)
	}
	if first, again := l.For(sandbox.ModeOff), l.For(sandbox.ModeOff); first != again {
		t.Fatal("launchers are not kept per mode")
	}
}
