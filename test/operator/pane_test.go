package operator

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/coder/websocket"

	gt "github.com/hermes-gateway/hermes/internal/gatewaytest"
	"github.com/hermes-gateway/hermes/internal/modeltest"
	"github.com/hermes-gateway/hermes/internal/protocol"
)

// The dashboard's terminal pane runs `hermes chat` in a PTY, and that chat
// authenticates with its pane's internal credential (docs/protocol.md#gates): its
// submission is attributed to server-internal, an operator of the session
// the native client created.
func TestTerminalPaneUsesInternalCredential(t *testing.T) {
	t.Parallel()
	f := gt.NewFixture(t, gt.Config{})
	f.Turns.Set("PANE_HELLO", modeltest.Text("PANE_REPLY"))
	d := f.Start()
	ctx := gt.Context(t, wait)
	snap, ws := openPane(ctx, t, d)
	paneSubmit(ctx, t, f, ws, "PANE_HELLO")
	db := gt.OpenDB(t, f.Home)
	var principal string
	if err := db.QueryRow(`SELECT principal_id FROM session_admissions WHERE target_session_id = ?`, snap.SessionID).Scan(&principal); err != nil {
		t.Fatal(err)
	}
	if principal != "server-internal" {
		t.Fatalf("the pane's submission is attributed to %q, want server-internal", principal)
	}
}

// The pane's credential reaches its `hermes chat` through an inherited
// descriptor, never its environment: a process of the same uid that reads
// the child's /proc/<pid>/environ (as a tool could, where no sandbox hides
// the pane) finds no credential, and the pane still connects.
func TestTerminalPaneCredentialNotInEnviron(t *testing.T) {
	t.Parallel()
	f := gt.NewFixture(t, gt.Config{})
	f.Turns.Set("PANE_ENVIRON", modeltest.Text("PANE_REPLY"))
	d := f.Start()
	ctx := gt.Context(t, wait)
	_, ws := openPane(ctx, t, d)
	var pid int
	gt.Await(t, wait, func() bool { pid = paneChild(t, d.PID()); return pid != 0 })
	paneSubmit(ctx, t, f, ws, "PANE_ENVIRON") // connected: the credential was read
	environ, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
	if errors.Is(err, fs.ErrPermission) {
		// Not root: the chat made itself non-dumpable once it held the
		// credential, so no same-uid process reads its environ at all.
		t.Logf("the pane's environ is closed to uid %d (non-dumpable)", os.Getuid())
		return
	}
	if err != nil {
		t.Fatalf("read the pane's environ: %v", err)
	}
	vars := strings.Split(string(environ), "\x00")
	if !slices.Contains(vars, "HERMES_GATEWAY_INTERNAL_FD=3") {
		t.Fatalf("pid %d is not the pane's chat (no HERMES_GATEWAY_INTERNAL_FD in %q)", pid, vars)
	}
	for _, kv := range vars {
		k, v, _ := strings.Cut(kv, "=")
		if k == "HERMES_GATEWAY_INTERNAL" {
			t.Errorf("the pane's environment carries HERMES_GATEWAY_INTERNAL")
		}
		if secretLike.MatchString(v) {
			t.Errorf("the pane's environment carries a secret-like value in %s", k)
		}
	}
}

// secretLike is a value that could be a credential: 20 or more characters
// of base64url and nothing else (paths and locales do not match).
var secretLike = regexp.MustCompile(`^[A-Za-z0-9_-]{20,}$`)

// paneChild is the pid of the daemon's `hermes … chat` child (the pane), or
// 0 while there is none.
func paneChild(t *testing.T, daemon int) int {
	t.Helper()
	dirs, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range dirs {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue
		}
		// pid (comm) state ppid …; comm may hold spaces, so cut at the last ')'.
		fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		if len(fields) < 2 || fields[1] != strconv.Itoa(daemon) {
			continue
		}
		cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if slices.Contains(strings.Split(string(cmdline), "\x00"), "chat") {
			return pid
		}
	}
	return 0
}

// openPane creates a session through the native client and opens a
// terminal pane on it from a linked browser.
func openPane(ctx context.Context, t *testing.T, d *gt.Daemon) (protocol.Snapshot, *paneConn) {
	t.Helper()
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
	t.Cleanup(func() { ws.CloseNow() })
	p := &paneConn{ws: ws}
	go p.screen.read(ctx, ws)
	gt.Await(t, wait, func() bool { return strings.Contains(p.screen.text(), "PANE") || len(p.screen.text()) > 200 })
	return snap, p
}

// paneConn is an open terminal pane and what it has shown.
type paneConn struct {
	ws     *websocket.Conn
	screen paneScreen
}

// paneSubmit types text and Enter into the pane and waits for the model to
// receive it.
func paneSubmit(ctx context.Context, t *testing.T, f *gt.Fixture, p *paneConn, text string) {
	t.Helper()
	for _, in := range []string{text, "\r"} {
		msg, _ := json.Marshal(map[string]string{"type": "input", "data": in})
		if err := p.ws.Write(ctx, websocket.MessageText, msg); err != nil {
			t.Fatal(err)
		}
	}
	gt.Await(t, wait, func() bool { return gt.FirstRequests(f.Model, text) == 1 })
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
