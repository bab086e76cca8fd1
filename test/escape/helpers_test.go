package escape

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/coder/websocket"
	"golang.org/x/sys/unix"

	"github.com/hermes-gateway/hermes/internal/control"
	gt "github.com/hermes-gateway/hermes/internal/gatewaytest"
	"github.com/hermes-gateway/hermes/internal/modeltest"
	"github.com/hermes-gateway/hermes/internal/protocol"
)

func toolCall(cmd string) modeltest.Reply {
	return modeltest.ToolCall("terminal", gt.TerminalArgs(cmd))
}

func textReply(s string) modeltest.Reply { return modeltest.Text(s) }

// awaitApproval waits for an approval.request of sid whose command
// contains want; the test approves any other approval of sid once on the
// way (its own consent, to let the attack's set-up run).
func (w *world) awaitApproval(sid, want string) protocol.Prompt {
	w.t.Helper()
	for n := 1; ; n++ {
		ev := w.v.AwaitN(w.t, wait, n, func(ev protocol.Event) bool {
			return ev.SessionID == sid && ev.Type == protocol.EventApprovalRequest
		})
		p := gt.Payload[protocol.Prompt](w.t, ev)
		if strings.Contains(p.Command, want) {
			return p
		}
		w.t.Logf("the test approves the set-up command once: %q", p.Command)
		ctx, cancel := context.WithTimeout(context.Background(), gt.CallTimeout)
		_, err := w.v.RespondApproval(ctx, protocol.ApprovalRespondParams{SessionID: sid,
			ExecutionGeneration: p.ExecutionGeneration, PromptID: p.PromptID, Choice: protocol.ChoiceOnce})
		cancel()
		if err != nil {
			w.t.Fatalf("approve the set-up command: %v", err)
		}
	}
}

// unlockedWithin reports whether the test can take an exclusive flock on
// path within wait.
func unlockedWithin(path string) bool {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	return gt.AwaitCtx(ctx, func() bool {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		return err == nil || !errors.Is(err, unix.EWOULDBLOCK)
	}) == nil
}

// killHolders SIGKILLs every process that has path open (an orphan a
// failed test left behind; only processes this test started hold it).
func killHolders(path string) {
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		fds, _ := os.ReadDir("/proc/" + e.Name() + "/fd")
		for _, fd := range fds {
			if l, err := os.Readlink("/proc/" + e.Name() + "/fd/" + fd.Name()); err == nil && l == path {
				_ = syscall.Kill(pid, syscall.SIGKILL)
				break
			}
		}
	}
}

// openPane logs a dashboard browser in with a one-time link and opens a
// terminal pane running `hermes chat --resume sid`; it returns once the
// pane has drawn its screen. The pane is closed in t.Cleanup.
func openPane(t *testing.T, w *world, sid string) {
	t.Helper()
	ctx := gt.Context(t, wait)
	api := w.api()
	link := mintTicket(t, w.d, "dashboard-login")
	hc := &http.Client{Timeout: wait, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := hc.Get(api + "/auth/link?ticket=" + url.QueryEscape(link))
	if err != nil {
		t.Fatal(err)
	}
	_ = res.Body.Close()
	var cookie *http.Cookie
	for _, c := range res.Cookies() {
		if c.Name == "hermes_session" {
			cookie = c
		}
	}
	if res.StatusCode != http.StatusSeeOther || cookie == nil {
		t.Fatalf("GET /auth/link: HTTP %d, cookie %v", res.StatusCode, cookie)
	}
	u := "ws" + strings.TrimPrefix(api, "http") + "/api/pty?" + url.Values{"resume": {sid}, "cols": {"100"}, "rows": {"30"}}.Encode()
	ws, _, err := websocket.Dial(ctx, u, &websocket.DialOptions{HTTPHeader: http.Header{
		"Origin": {api}, "Cookie": {cookie.Name + "=" + cookie.Value},
	}})
	if err != nil {
		t.Fatalf("open the pane: %v", err)
	}
	t.Cleanup(func() { _ = ws.CloseNow() })
	screen := &paneScreen{}
	go screen.read(ctx, ws)
	gt.Await(t, wait, func() bool { return len(screen.text()) > 200 })
	t.Logf("pane open on %s (%d bytes drawn)", sid, len(screen.text()))
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

// mintTicket mints a ticket of purpose over the control socket (the test
// is an ordinary client).
func mintTicket(t *testing.T, d *gt.Daemon, purpose string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	id := d.Identity()
	var res control.TicketResult
	if err := control.Call(ctx, d.Socket(), "session-ticket", control.TicketParams{
		ProfileID: id.ProfileID, InstanceID: id.InstanceID, Purpose: purpose,
	}, &res); err != nil {
		t.Fatalf("session-ticket %s: %v", purpose, err)
	}
	return res.Ticket
}
