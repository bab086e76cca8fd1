package dashboard

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// fakeChat stands in for `hermes`: it prints its argv and environment,
// then echoes one line of input.
const fakeChat = `#!/bin/sh
echo "ARGS $*"
env | sort | sed 's/^/ENV /'
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
	if !strings.Contains(out, "ENV "+InternalEnv+"="+h.dash.InternalCredential().Reveal()) {
		t.Errorf("internal credential not in the child's environment")
	}
	for _, line := range strings.Split(out, "\n") {
		k, _, ok := strings.Cut(strings.TrimPrefix(strings.TrimSpace(line), "ENV "), "=")
		if strings.HasPrefix(line, "ENV ") && ok && !allowedChildEnv[k] {
			t.Errorf("unexpected variable in the child's environment: %s", k)
		}
	}
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
}

// allowedChildEnv is the pane child's environment (sh adds PWD, SHLVL, _).
var allowedChildEnv = map[string]bool{"PATH": true, "HOME": true, "TERM": true, "LANG": true,
	InternalEnv: true, "PWD": true, "SHLVL": true, "_": true, "OLDPWD": true}

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
