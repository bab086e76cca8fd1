package session

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hermes-gateway/hermes/internal/protocol"
)

// TestBuildFreezesSandbox: the sandbox settings of the effective defaults
// are copied into the policy (the code defaults' under safe_mode), survive
// the stored round trip, and a later change of the defaults does not reach
// the frozen copy.
func TestBuildFreezesSandbox(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	profile := &SandboxPolicy{Mode: SandboxStrict, Network: false, WritableRoots: []string{"~/cache"}, HiddenPaths: []string{"~/.ssh"}}
	code := &SandboxPolicy{Mode: SandboxStrict, Network: false, WritableRoots: []string{}, HiddenPaths: []string{"~/.aws"}}
	e.d.Sandbox = profile
	e.d.CodeDefaults = &Defaults{Model: "m", MaxTurns: 90, Sandbox: code}
	for _, tt := range []struct {
		in   string
		want *SandboxPolicy
	}{
		{`{"request_id":"a"}`, profile},
		{`{"request_id":"b","safe_mode":true,"model":"m"}`, code},
	} {
		r := built(t, e, tt.in).Receipt
		if diff := cmp.Diff(tt.want, r.Policy.Sandbox); diff != "" {
			t.Fatalf("%s: frozen sandbox (-want +got):\n%s", tt.in, diff)
		}
		raw, err := r.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		tt.want.WritableRoots = append(tt.want.WritableRoots, "/later") // a config edit
		got, err := ParseReceipt(raw)
		if err != nil {
			t.Fatal(err)
		}
		if err := got.Check("prof-1", r.SessionID); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(r.Policy.Sandbox, got.Policy.Sandbox); diff != "" || len(got.Policy.Sandbox.WritableRoots) == len(tt.want.WritableRoots) {
			t.Fatalf("%s: stored sandbox (-built +parsed):\n%s", tt.in, diff)
		}
	}
}

// TestReceiptWithoutSandbox: a receipt from before the sandbox (no key)
// still parses and checks; its nil sandbox means the profile's settings.
func TestReceiptWithoutSandbox(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := built(t, e, `{"request_id":"old"}`).Receipt
	raw, err := r.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	got, err := ParseReceipt(raw)
	if err != nil {
		t.Fatal(err)
	}
	if got.Policy.Sandbox != nil {
		t.Fatalf("sandbox = %+v, want nil", got.Policy.Sandbox)
	}
	if err := got.Check("prof-1", r.SessionID); err != nil {
		t.Fatal(err)
	}
}

func TestCheckSandboxRejects(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, bad := range []SandboxPolicy{
		{Mode: ""},
		{Mode: "none"},
		{Mode: SandboxAuto, WritableRoots: []string{"relative/dir"}},
		{Mode: SandboxAuto, HiddenPaths: []string{""}},
	} {
		r := built(t, e, `{"request_id":"x"}`).Receipt
		r.Policy.Sandbox = &bad
		wantErr(t, r.Check("prof-1", r.SessionID), protocol.ReasonStorageUnavailable, "policy.sandbox")
	}
}
