package policy

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	gt "github.com/hermes-gateway/hermes/internal/gatewaytest"
	"github.com/hermes-gateway/hermes/internal/modeltest"
	"github.com/hermes-gateway/hermes/internal/protocol"
)

// TestKeysBoundToEndpoint (issue 10 item 3): the profile's key (from .env,
// for the profile's base_url on server A) reaches A and never server B, to
// which a session points without an api_key; a session with plain http://
// to a non-loopback host is refused (invalid_params) and nothing of it is
// written.
func TestKeysBoundToEndpoint(t *testing.T) {
	t.Parallel()
	f := gt.NewFixture(t, gt.Config{APIKeyEnv: "OPENAI_API_KEY", NoCompression: true})
	key := canary("sk-bound-")
	gt.WriteFile(t, filepath.Join(f.Home, ".env"), "OPENAI_API_KEY="+key+"\n")
	b := modeltest.New(t)
	b.Handle(func(*modeltest.Request) modeltest.Reply { return modeltest.Text("from B") })
	d := f.Start()
	v := d.View(gt.Context(t, wait))
	cwd := gt.Cwd(t)

	onA := gt.Create(t, v, protocol.SessionCreateParams{RequestID: gt.Ptr("a"), Cwd: &cwd})
	if mc := turn(t, v, onA.SessionID, "a1", "hello A", nil); mc.Outcome != protocol.OutcomeCompleted {
		t.Fatalf("turn on A: %q", mc.Outcome)
	}
	reqsA := f.Model.Requests()
	if len(reqsA) == 0 || reqsA[len(reqsA)-1].Header.Get("Authorization") != "Bearer "+key {
		t.Fatal("the profile's own endpoint did not get the profile's key")
	}

	urlB := b.URL()
	onB := gt.Create(t, v, protocol.SessionCreateParams{RequestID: gt.Ptr("b"), Cwd: &cwd, BaseURL: &urlB})
	if mc := turn(t, v, onB.SessionID, "b1", "hello B", nil); mc.Outcome != protocol.OutcomeCompleted {
		t.Fatalf("turn on B: %q", mc.Outcome)
	}
	reqsB := b.Requests()
	if len(reqsB) == 0 {
		t.Fatal("server B got no request")
	}
	for _, r := range reqsB {
		if auth := r.Header.Get("Authorization"); auth != "" {
			t.Errorf("server B got Authorization %.16q… (the profile's key: %t)", auth, strings.Contains(auth, key))
		}
		for k, vals := range r.Header {
			for _, val := range vals {
				if strings.Contains(val, key) {
					t.Errorf("server B got the profile's key in header %s", k)
				}
			}
		}
		if bytes.Contains(r.Raw, []byte(key)) {
			t.Error("server B got the profile's key in a request body")
		}
	}

	ctx := gt.Context(t, wait)
	for i, p := range []protocol.SessionCreateParams{
		{BaseURL: gt.Ptr("http://example.com/v1")},
		{BaseURL: gt.Ptr("http://example.com:8080/v1"), APIKey: gt.Ptr("sk-own-key")},
		{BaseURL: gt.Ptr("HTTP://Example.COM/v1")},
	} {
		p.RequestID, p.Cwd = gt.Ptr("insecure"+string(rune('0'+i))), &cwd
		if _, err := v.CreateSession(ctx, p); gt.Reason(err) != protocol.ReasonInvalidParams {
			t.Errorf("session.create base_url %s: err %v, want invalid_params", *p.BaseURL, err)
		}
	}
	if code := d.Stop(); code != 0 {
		t.Fatalf("stop: exit %d", code)
	}
	db := gt.OpenDB(t, f.Home)
	if n := gt.Count(t, db, `SELECT count(*) FROM sessions`); n != 2 {
		t.Errorf("%d sessions stored, want the 2 accepted ones", n)
	}
	err := filepath.WalkDir(f.Home, func(p string, e fs.DirEntry, err error) error {
		if err != nil || !e.Type().IsRegular() {
			return err
		}
		raw, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if bytes.Contains(bytes.ToLower(raw), []byte("example.com")) {
			t.Errorf("%s holds the refused base_url", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
