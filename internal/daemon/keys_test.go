package daemon

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-gateway/hermes/internal/modeltest"
	"github.com/hermes-gateway/hermes/internal/protocol"
	"github.com/hermes-gateway/hermes/internal/rpc"
)

// TestKeysBoundToTheirEndpoint (issue 10 item 3): a key from .env goes only
// to the base_url it was configured with. A session on another endpoint
// sends its own launch api_key, or no Authorization at all.
func TestKeysBoundToTheirEndpoint(t *testing.T) {
	t.Parallel()
	d := startTest(t, "")
	other, prov := modeltest.New(t), modeltest.New(t)
	echo := func(r *modeltest.Request) modeltest.Reply {
		return modeltest.Text("auth=[" + r.Header.Get("Authorization") + "]")
	}
	for _, m := range []*modeltest.Server{d.model, other, prov} {
		m.Handle(echo)
	}
	cfg := "model: {default: fake-model, base_url: \"" + d.model.URL() + "\", api_key_env: PROFILE_KEY}\n" +
		"providers: {p: {base_url: \"" + prov.URL() + "/\", api_key_env: PROVIDER_KEY}}\n" +
		"streaming: {enabled: false}\n"
	writeHomeFile(t, d.home, "config.yaml", cfg)
	writeHomeFile(t, d.home, ".env", "PROFILE_KEY=sk-profile-secret\nPROVIDER_KEY=sk-provider-secret\n")

	ctx := ctxT(t)
	c := d.connect()
	cwd := t.TempDir()
	otherURL := other.URL()
	tests := []struct {
		name string
		p    protocol.SessionCreateParams
		want string
	}{
		{"profile endpoint", protocol.SessionCreateParams{}, "auth=[Bearer sk-profile-secret]"},
		{"other endpoint without key", protocol.SessionCreateParams{BaseURL: &otherURL}, "auth=[]"},
		{"other endpoint with key", protocol.SessionCreateParams{BaseURL: &otherURL, APIKey: ptr("sk-own")}, "auth=[Bearer sk-own]"},
		{"named provider", protocol.SessionCreateParams{Provider: ptr("p")}, "auth=[Bearer sk-provider-secret]"},
		{"named provider elsewhere", protocol.SessionCreateParams{Provider: ptr("p"), BaseURL: &otherURL}, "auth=[]"},
	}
	for i, tt := range tests {
		tt.p.RequestID, tt.p.Cwd, tt.p.Toolsets = ptr(tt.name), &cwd, &[]string{}
		snap, err := c.CreateSession(ctx, tt.p)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		sub := protocol.PromptSubmitParams{SessionID: snap.SessionID, SubmissionID: ptr("s" + string(rune('a'+i))), Text: "hi"}
		if _, err := c.Submit(ctx, sub); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		awaitComplete(t, ctx, c, tt.want)
	}
	for _, r := range append(other.Requests(), prov.Requests()...) {
		if strings.Contains(r.Header.Get("Authorization"), "sk-profile-secret") {
			t.Fatal("the profile key reached another endpoint")
		}
	}
	for _, r := range other.Requests() {
		if strings.Contains(r.Header.Get("Authorization"), "sk-provider-secret") {
			t.Fatal("the provider key reached another endpoint")
		}
	}
}

// TestPlainHTTPOnlyLoopback: http:// to a non-loopback host is refused at
// session.create with a detail naming the rule.
func TestPlainHTTPOnlyLoopback(t *testing.T) {
	t.Parallel()
	d := startTest(t, "")
	ctx := ctxT(t)
	c := d.connect()
	_, err := c.CreateSession(ctx, protocol.SessionCreateParams{BaseURL: ptr("http://models.example:8080/v1")})
	var ce *rpc.CallError
	if !errors.As(err, &ce) || ce.Reason != protocol.ReasonInvalidParams || !strings.Contains(ce.Detail, "loopback") ||
		!strings.Contains(ce.Detail, "allow_insecure_http") {
		t.Fatalf("create: %v", err)
	}
	if strings.Contains(ce.Detail, "models.example") {
		t.Fatalf("detail echoes the url: %q", ce.Detail)
	}
}

func writeHomeFile(t *testing.T, home, name, body string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(home, name), []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
}
