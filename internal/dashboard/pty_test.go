package dashboard

import (
	"context"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// fakeChat stands in for `hermes`: it prints its argv, its environment and
// the credential it reads from the inherited descriptor, then echoes one
// line of input.
const fakeChat = `#!/bin/sh
echo "ARGS $*"
env | sort | sed 's/^/ENV /'
echo "CRED $(cat <&3)."
exec 3<&-
echo READY
read line
echo "GOT $line"
sleep 600
`

func TestTerminalPane(t *testing.T) {
	t.Parallel()
	exe := filepath.Join(t.TempDir(), "hermes")
	if err := os.WriteFile(exe, []byte(fakeChat), 0o700); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, func(c *Config, _ *harnessTLS) { c.Executable = exe })
	c := h.login("dashboard:uid:1")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	hdr := http.Header{"Origin": {h.origin}, "Cookie": {c.String()}}
	wsURL := "ws" + strings.TrimPrefix(h.origin, "http") + "/api/pty?resume=local-abc&cols=80&rows=24"
	ws, _, err := websocket.Dial(ctx, wsURL, &websocket.DialOptions{HTTPHeader: hdr})
	if err != nil {
		t.Fatalf("dial pty: %v", err)
	}
	defer ws.CloseNow()
	out := readUntil(ctx, t, ws, "READY")
	if !strings.Contains(out, "ARGS --home "+h.dash.cfg.Home+" chat --resume local-abc") {
		t.Errorf("argv: %s", out)
	}
	if !strings.Contains(out, "ENV "+InternalFDEnv+"=3\n") {
		t.Errorf("the child's environment does not name the credential descriptor")
	}
	cred := paneCred(t, out)
	for _, line := range strings.Split(out, "\n") {
		k, v, ok := strings.Cut(strings.TrimPrefix(strings.TrimSpace(line), "ENV "), "=")
		if strings.HasPrefix(line, "ENV ") && ok && !allowedChildEnv[k] {
			t.Errorf("unexpected variable in the child's environment: %s", k)
		}
		if strings.HasPrefix(line, "ENV ") && strings.Contains(v, cred) {
			t.Errorf("the pane credential is in the child's environment (%s)", k)
		}
	}
	// The credential authenticates while its pane runs.
	cl, err := h.dial(url.Values{"internal": {cred}}, "")
	if err != nil {
		t.Fatalf("pane credential refused while the pane runs: %v", err)
	}
	cl.Close()
	if err := ws.Write(ctx, websocket.MessageText, []byte(`{"type":"resize","cols":120,"rows":40}`)); err != nil {
		t.Fatal(err)
	}
	if err := ws.Write(ctx, websocket.MessageText, []byte(`{"type":"input","data":"hello\r"}`)); err != nil {
		t.Fatal(err)
	}
	readUntil(ctx, t, ws, "GOT hello")
	_ = ws.Close(websocket.StatusNormalClosure, "")
	// Close joins the pane: the child (sleeping) was killed and reaped.
	done := make(chan struct{})
	go func() { _ = h.dash.Close(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		t.Fatal("Close did not join the terminal pane")
	}
	// Its pane gone, the credential is revoked.
	if _, err := h.dial(url.Values{"internal": {cred}}, ""); dialStatus(err) != http.StatusUnauthorized {
		t.Errorf("credential of an ended pane: %v, want 401", err)
	}
}

// paneCred is the credential fakeChat read from its descriptor.
func paneCred(t *testing.T, out string) string {
	t.Helper()
	_, rest, _ := strings.Cut(out, "CRED ")
	cred, _, _ := strings.Cut(rest, ".\n")
	if len(cred) < 43 {
		t.Fatalf("the child read no credential from descriptor %d: %q", InternalFD, cred)
	}
	return cred
}

// allowedChildEnv is the pane child's environment (sh adds PWD, SHLVL, _).
var allowedChildEnv = map[string]bool{"PATH": true, "HOME": true, "TERM": true, "LANG": true,
	InternalFDEnv: true, "PWD": true, "SHLVL": true, "_": true, "OLDPWD": true}

func readUntil(ctx context.Context, t *testing.T, ws *websocket.Conn, want string) string {
	t.Helper()
	var b strings.Builder
	for !strings.Contains(b.String(), want) {
		_, data, err := ws.Read(ctx)
		if err != nil {
			t.Fatalf("waiting for %q: %v; got %q", want, err, b.String())
		}
		b.Write(data)
	}
	return strings.ReplaceAll(b.String(), "\r", "")
}

func TestTerminalPaneGate(t *testing.T) {
	t.Parallel()
	h := newHarness(t, func(c *Config, _ *harnessTLS) { c.Executable = "/bin/false" })
	c := h.login("dashboard:uid:1")
	cases := []struct {
		cookie *http.Cookie
		hdrs   []string
		path   string
		want   int
	}{
		{c, nil, "/api/pty", http.StatusForbidden},
		{c, []string{"Origin: http://evil.example"}, "/api/pty", http.StatusForbidden},
		{nil, []string{"Origin: " + h.origin}, "/api/pty", http.StatusUnauthorized},
		{c, []string{"Origin: " + h.origin}, "/api/pty?resume=--yolo", http.StatusBadRequest},
	}
	for i, tc := range cases {
		if res := h.do("GET", tc.path, tc.cookie, tc.hdrs...); res.StatusCode != tc.want {
			t.Errorf("case %d: HTTP %d, want %d", i, res.StatusCode, tc.want)
		}
	}
}
