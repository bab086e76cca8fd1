package daemon

import (
	"testing"

	"github.com/hermes-gateway/hermes/internal/protocol"
)

// TestTitlesRefuseSpoofing (issue 10 item 5): a title with a control
// character or a bidi control is invalid_params at session.create and at
// session.mutate rename; a plain title is accepted.
func TestTitlesRefuseSpoofing(t *testing.T) {
	t.Parallel()
	d := startTest(t, "")
	ctx := ctxT(t)
	c := d.connect()
	cwd := t.TempDir()
	bad := []string{"invoice\u202etxt.exe", "a\x1b[2Kb", "tab\there", "iso\u2066late", "mark\u200f", "c1\u009b"}
	for i, title := range bad {
		_, err := c.CreateSession(ctx, protocol.SessionCreateParams{RequestID: ptr("bad" + string(rune('a'+i))), Cwd: &cwd, Title: ptr(title)})
		if reason(err) != "invalid_params" {
			t.Errorf("create title %q: %v", title, err)
		}
	}
	snap, err := c.CreateSession(ctx, protocol.SessionCreateParams{RequestID: ptr("ok"), Cwd: &cwd, Title: ptr("Plain title")})
	if err != nil {
		t.Fatal(err)
	}
	for i, title := range bad {
		payload := []byte(`{"title":` + mustJSON(title) + `}`)
		_, err := c.MutateSession(ctx, protocol.SessionMutateParams{SessionID: snap.SessionID, RequestID: "r" + string(rune('a'+i)),
			ExpectedRevision: snap.Revision, Operation: "rename", Payload: payload})
		if reason(err) != "invalid_params" {
			t.Errorf("rename to %q: %v", title, err)
		}
	}
	if _, err := c.MutateSession(ctx, protocol.SessionMutateParams{SessionID: snap.SessionID, RequestID: "good",
		ExpectedRevision: snap.Revision, Operation: "rename", Payload: []byte(`{"title":"Renamed — été"}`)}); err != nil {
		t.Fatalf("plain rename: %v", err)
	}
}
