package operator

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/coder/websocket"

	gt "github.com/hermes-gateway/hermes/internal/gatewaytest"
	"github.com/hermes-gateway/hermes/internal/modeltest"
	"github.com/hermes-gateway/hermes/internal/protocol"
)

// The dashboard's terminal pane runs `hermes chat` in a PTY, and that chat
// authenticates with the per-process internal credential (SPEC §4): its
// submission is attributed to server-internal, an operator of the session
// the native client created.
func TestTerminalPaneUsesInternalCredential(t *testing.T) {
	t.Parallel()
	f := gt.NewFixture(t, gt.Config{})
	f.Turns.Set("PANE_HELLO", modeltest.Text("PANE_REPLY"))
	d := f.Start()
	ctx := gt.Context(t, wait)
	dir := gt.Cwd(t)
	snap := gt.Create(t, nativeView(ctx, t, d), protocol.SessionCreateParams{RequestID: gt.Ptr("pane"), Cwd: &dir})
	api := d.Identity().APIOrigin
	br := newBrowser(api)
	br.link(t, d)
	u := "ws" + strings.TrimPrefix(api, "http") + "/api/pty?" + url.Values{"resume": {snap.SessionID}, "cols": {"100"}, "rows": {"30"}}.Encode()
	ws, _, err := websocket.Dial(ctx, u, &websocket.DialOptions{HTTPHeader: http.Header{
		"Origin": {api}, "Cookie": {br.cookie.Name + "=" + br.cookie.Value},
	}})
	if err != nil {
		t.Fatalf("open the pane: %v", err)
	}
	defer ws.CloseNow()
	screen := &paneScreen{}
	go screen.read(ctx, ws)
	gt.Await(t, wait, func() bool { return strings.Contains(screen.text(), "PANE") || len(screen.text()) > 200 })
	for _, in := range []string{"PANE_HELLO", "\r"} {
		msg, _ := json.Marshal(map[string]string{"type": "input", "data": in})
		if err := ws.Write(ctx, websocket.MessageText, msg); err != nil {
			t.Fatal(err)
		}
	}
	gt.Await(t, wait, func() bool { return gt.FirstRequests(f.Model, "PANE_HELLO") == 1 })
	db := gt.OpenDB(t, f.Home)
	var principal string
	if err := db.QueryRow(`SELECT principal_id FROM session_admissions WHERE target_session_id = ?`, snap.SessionID).Scan(&principal); err != nil {
		t.Fatal(err)
	}
	if principal != "server-internal" {
		t.Fatalf("the pane's submission is attributed to %q, want server-internal", principal)
	}
}

// paneScreen accumulates the pane's output frames.
type paneScreen struct {
	mu  sync.Mutex
	buf strings.Builder
}

func (s *paneScreen) read(ctx context.Context, ws *websocket.Conn) {
	for {
		_, b, err := ws.Read(ctx)
		if err != nil {
			return
		}
		s.mu.Lock()
		s.buf.Write(b)
		s.mu.Unlock()
	}
}

func (s *paneScreen) text() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}
