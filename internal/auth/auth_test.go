package auth

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/hermes-gateway/hermes/internal/protocol"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestSubjects(t *testing.T) {
	t.Parallel()
	if got := NativeSubject(1000); got != "uid:1000" {
		t.Errorf("NativeSubject = %q", got)
	}
	if got := DashboardLinkSubject(0); got != "dashboard:uid:0" {
		t.Errorf("DashboardLinkSubject = %q", got)
	}
	// sha256("https://issuer.example") starts with these 16 hex digits.
	got := OIDCSubject("https://issuer.example", "alice")
	if !strings.HasPrefix(got, "oidc:") || !strings.HasSuffix(got, ":alice") || len(got) != len("oidc:")+16+len(":alice") {
		t.Errorf("OIDCSubject = %q", got)
	}
	if OIDCSubject("https://a", "x") == OIDCSubject("https://b", "x") {
		t.Error("OIDCSubject ignores the issuer")
	}
}

func TestCaps(t *testing.T) {
	t.Parallel()
	want := []string{protocol.CapCreate, protocol.CapRead, protocol.CapSubmit,
		protocol.CapControl, protocol.CapApprove, protocol.CapRespond}
	if diff := cmp.Diff(want, InteractiveCaps().List()); diff != "" {
		t.Errorf("InteractiveCaps (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(append(want, protocol.CapOperator), GateCaps().List()); diff != "" {
		t.Errorf("GateCaps (-want +got):\n%s", diff)
	}
	if InteractiveCaps().Has(protocol.CapOperator) {
		t.Error("interactive caps include operator")
	}
	if NewCaps("admin:everything", "").Has("admin:everything") || NewCaps("admin:everything") != 0 {
		t.Error("unknown capability granted")
	}
	if got := GateCaps().Without(protocol.CapOperator); got != InteractiveCaps() {
		t.Errorf("Without = %v", got)
	}
	if l := Caps(0).List(); l == nil || len(l) != 0 {
		t.Errorf("empty List = %#v", l)
	}
	p := Principal{Subject: "uid:1", Caps: GateCaps()}
	if !p.Operator() || !p.Can(protocol.CapSubmit) || p.Can("session:nothing") {
		t.Errorf("principal checks wrong: %+v", p)
	}
	if (Principal{Caps: InteractiveCaps()}).Operator() {
		t.Error("interactive principal is operator")
	}
}

func TestNewTransportIDIsFresh(t *testing.T) {
	t.Parallel()
	a, b := NewTransportID(), NewTransportID()
	if a == b || a == "" {
		t.Errorf("transport ids %q %q", a, b)
	}
}

func TestSecretTokenAndEqual(t *testing.T) {
	t.Parallel()
	s, err := NewSecretToken()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(raw) != 32 {
		t.Fatalf("token %d bytes, err %v", len(raw), err)
	}
	s2, _ := NewSecretToken()
	cases := []struct {
		a, b string
		want bool
	}{
		{s, s, true},
		{s, s2, false},
		{s, s[:len(s)-1], false},
		{"", "", false},
		{s, "", false},
	}
	for _, c := range cases {
		if got := EqualSecret(c.a, c.b); got != c.want {
			t.Errorf("EqualSecret(%d chars, %d chars) = %v", len(c.a), len(c.b), got)
		}
	}
}

func TestSecretRedacts(t *testing.T) {
	t.Parallel()
	const v = "canary-7f3a9"
	s := NewSecret(v)
	var logged strings.Builder
	slog.New(slog.NewJSONHandler(&logged, nil)).Info("x", "s", s)
	js, _ := json.Marshal(struct{ S Secret }{s})
	out := fmt.Sprintf("%v %s %q %+v %#v", s, s, s, s, s) + logged.String() + string(js)
	if strings.Contains(out, v) {
		t.Errorf("secret leaked: %s", out)
	}
	if s.Reveal() != v || !s.Equal(v) || s.Equal("other") || s.IsZero() {
		t.Error("Reveal/Equal/IsZero wrong")
	}
}
