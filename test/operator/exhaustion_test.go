package operator

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"
	"golang.org/x/sys/unix"

	"github.com/hermes-gateway/hermes/internal/client"
	"github.com/hermes-gateway/hermes/internal/control"
	gt "github.com/hermes-gateway/hermes/internal/gatewaytest"
	"github.com/hermes-gateway/hermes/internal/modeltest"
	"github.com/hermes-gateway/hermes/internal/protocol"
)

// TestConnectionCap: with gateway.max_connections = N, N WebSocket
// connections work at once and connection N+1 is answered 503 with a
// one-line reason and closed at once; a freed slot is usable again.
func TestConnectionCap(t *testing.T) {
	t.Parallel()
	const capN = 8
	f := gt.NewFixture(t, gt.Config{Extra: fmt.Sprintf("gateway:\n  max_connections: %d\n", capN)})
	d := f.Start()
	ctx := gt.Context(t, wait)
	var open []*client.Client
	for i := range capN {
		c, err := d.Dial(ctx)
		if err != nil {
			t.Fatalf("connection %d of %d: %v", i+1, capN, err)
		}
		defer c.Close()
		open = append(open, c)
	}
	for i, c := range open {
		if err := c.Ping(ctx); err != nil {
			t.Fatalf("connection %d under the cap: ping: %v", i+1, err)
		}
	}
	if c, err := d.Dial(ctx); err == nil {
		c.Close()
		t.Fatalf("connection %d was accepted over a cap of %d", capN+1, capN)
	}
	status, body := rawGet(t, d.Identity().APIOrigin)
	if status != http.StatusServiceUnavailable || !strings.Contains(body, "gateway.max_connections") {
		t.Fatalf("connection %d: HTTP %d %q, want 503 naming gateway.max_connections", capN+1, status, body)
	}
	for i, c := range open {
		if err := c.Ping(ctx); err != nil {
			t.Fatalf("connection %d after the refusals: %v", i+1, err)
		}
	}
	_ = open[0].Close()
	gt.Await(t, wait, func() bool {
		c, err := d.Dial(ctx)
		if err != nil {
			return false
		}
		defer c.Close()
		return c.Ping(ctx) == nil
	})
}

// rawGet sends one GET / on a fresh TCP connection and reads the answer.
func rawGet(t *testing.T, origin string) (int, string) {
	t.Helper()
	host := strings.TrimPrefix(origin, "http://")
	conn, err := net.DialTimeout("tcp", host, wait)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(wait))
	fmt.Fprintf(conn, "GET / HTTP/1.1\r\nHost: %s\r\n\r\n", host)
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("read the answer: %v", err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// rawWS opens a native WebSocket without the client library; rcvbuf > 0
// shrinks the socket's receive buffer (a viewer whose window fills fast).
func rawWS(t *testing.T, d *gt.Daemon, rcvbuf int) *websocket.Conn {
	t.Helper()
	dialer := &net.Dialer{Control: func(_, _ string, rc syscall.RawConn) error {
		if rcvbuf <= 0 {
			return nil
		}
		var serr error
		err := rc.Control(func(fd uintptr) { serr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_RCVBUF, rcvbuf) })
		if err != nil {
			return err
		}
		return serr
	}}
	hc := &http.Client{Transport: &http.Transport{DialContext: dialer.DialContext}}
	ws, _, err := websocket.Dial(gt.Context(t, wait), "ws"+strings.TrimPrefix(d.Identity().APIOrigin, "http")+"/api/ws", &websocket.DialOptions{
		HTTPClient:   hc,
		Subprotocols: []string{protocol.Subprotocol, protocol.TicketSubprotocolPrefix + mintTicket(t, d, "interactive")},
	})
	if err != nil {
		t.Fatalf("raw dial: %v", err)
	}
	ws.SetReadLimit(64 << 20)
	t.Cleanup(func() { _ = ws.CloseNow() })
	readFrame(t, ws) // gateway.ready
	return ws
}

// rawFrame is what the tests read of a server frame.
type rawFrame struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params protocol.Event  `json:"params"`
	Error  *struct {
		Code int `json:"code"`
	} `json:"error"`
}

func readFrame(t *testing.T, ws *websocket.Conn) rawFrame {
	t.Helper()
	_, b, err := ws.Read(gt.Context(t, wait))
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	var f rawFrame
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatalf("frame %s: %v", b, err)
	}
	return f
}

// TestWireRefusals: a duplicate member in the JSON-RPC envelope is -32600
// like a duplicate key in params, and a text frame that is not UTF-8
// closes the connection with 1007.
func TestWireRefusals(t *testing.T) {
	t.Parallel()
	d := gt.NewFixture(t, gt.Config{}).Start()
	ws := rawWS(t, d, 0)
	ctx := gt.Context(t, wait)
	for _, frame := range []string{
		`{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":3,"method":"ping","method":"session.list"}`,
	} {
		if err := ws.Write(ctx, websocket.MessageText, []byte(frame)); err != nil {
			t.Fatal(err)
		}
		f := readFrame(t, ws)
		if f.Error == nil || f.Error.Code != protocol.CodeInvalidRequest || string(f.ID) != "null" {
			t.Errorf("%s answered %+v, want -32600 with id null", frame, f)
		}
	}
	if err := ws.Write(ctx, websocket.MessageText, []byte(`{"jsonrpc":"2.0","id":4,"method":"ping"}`)); err != nil {
		t.Fatal(err)
	}
	if f := readFrame(t, ws); f.Error != nil || string(f.ID) != "4" {
		t.Fatalf("ping after the refusals = %+v", f)
	}
	if err := ws.Write(ctx, websocket.MessageText, []byte("{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\",\"params\":{\"x\":\"\xc3\x28\"}}")); err != nil {
		t.Fatal(err)
	}
	_, _, err := ws.Read(ctx)
	if got := websocket.CloseStatus(err); got != websocket.StatusInvalidFramePayloadData {
		t.Fatalf("after invalid UTF-8: %v (status %d), want close 1007", err, got)
	}
}

// TestTicketFloodLocksNobodyOut: one process holding 1,024 outstanding
// interactive tickets neither stops dashboard-login minting nor a fresh
// interactive ticket from working.
func TestTicketFloodLocksNobodyOut(t *testing.T) {
	t.Parallel()
	d := gt.NewFixture(t, gt.Config{}).Start()
	ctx := gt.Context(t, wait)
	id := d.Identity()
	for i := range 1100 {
		var res control.TicketResult
		if err := control.Call(ctx, d.Socket(), "session-ticket", control.TicketParams{
			ProfileID: id.ProfileID, InstanceID: id.InstanceID, Purpose: "interactive",
		}, &res); err != nil {
			t.Fatalf("interactive ticket %d: %v", i+1, err)
		}
	}
	if tk := mintTicket(t, d, "dashboard-login"); tk == "" {
		t.Fatal("no dashboard-login ticket")
	}
	c, err := d.Dial(ctx)
	if err != nil {
		t.Fatalf("a fresh interactive ticket after the flood: %v", err)
	}
	defer c.Close()
	if err := c.Ping(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestStalledViewer: a viewer that stops reading (tiny receive buffer,
// never reads) is cut off with session.replay_gap once its backlog passes
// gateway.viewer_buffer_bytes; the turns and a reading viewer go on, and
// the daemon's peak memory stays what it is without the stalled viewer.
func TestStalledViewer(t *testing.T) {
	t.Parallel()
	const turns, answer = 30, 512 << 10
	cfg := gt.Config{Streaming: true, Extra: "gateway:\n  viewer_buffer_bytes: 1048576\n  write_timeout: 60s\n"}
	base := streamTurns(t, cfg, turns, answer, false)
	stalled := streamTurns(t, cfg, turns, answer, true)
	t.Logf("peak memory growth: %d KiB without a stalled viewer, %d KiB with one", base>>10, stalled>>10)
	// Without the byte budget the stalled viewer held every answer: about
	// twice the growth. With it the two runs differ by noise.
	if float64(stalled) > 1.25*float64(base)+float64(2<<20) {
		t.Fatalf("a stalled viewer raised the daemon's peak memory growth from %d KiB to %d KiB", base>>10, stalled>>10)
	}
}

// streamTurns runs turns streamed answers of size bytes on a new daemon,
// optionally with a stalled viewer attached, and returns how much VmHWM
// grew over the VmRSS before the turns.
func streamTurns(t *testing.T, cfg gt.Config, turns, size int, stall bool) int64 {
	t.Helper()
	f := gt.NewFixture(t, cfg)
	for i := range turns {
		f.Turns.Set(fmt.Sprintf("big %d", i), modeltest.Reply{Text: strings.Repeat(string(rune('a'+i%26)), size), Chunk: 4096})
	}
	d := f.Start()
	ctx := gt.Context(t, 3*wait)
	owner := d.View(ctx)
	dir := gt.Cwd(t)
	snap := gt.Create(t, owner, protocol.SessionCreateParams{RequestID: gt.Ptr("big"), Cwd: &dir})
	var ws *websocket.Conn
	if stall {
		ws = rawWS(t, d, 4096)
		resume := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"session.resume","params":{"session_id":%q}}`, snap.SessionID)
		if err := ws.Write(ctx, websocket.MessageText, []byte(resume)); err != nil {
			t.Fatal(err)
		}
		if f := readFrame(t, ws); string(f.ID) != "1" || f.Error != nil {
			t.Fatalf("resume = %+v", f)
		}
	}
	before := procStatus(t, d.PID(), "VmRSS")
	for i := range turns {
		rc := gt.Submit(t, owner, snap.SessionID, fmt.Sprintf("s%d", i), fmt.Sprintf("big %d", i))
		gt.AwaitComplete(t, owner, rc.AdmissionID, 3*wait)
	}
	peak := procStatus(t, d.PID(), "VmHWM")
	if stall {
		awaitGap(t, ws)
	}
	return peak - before
}

// awaitGap reads the stalled viewer's backlog: it must end with a
// session.replay_gap (cut off by its byte budget), not with every answer.
func awaitGap(t *testing.T, ws *websocket.Conn) {
	t.Helper()
	ctx := gt.Context(t, wait)
	completes := 0
	for {
		_, b, err := ws.Read(ctx)
		if err != nil {
			t.Fatalf("stalled viewer: connection ended (%v) after %d message.complete without a replay_gap", err, completes)
		}
		var f rawFrame
		_ = json.Unmarshal(b, &f)
		switch f.Params.Type {
		case protocol.EventReplayGap:
			return
		case protocol.EventMessageComplete:
			completes++
		}
	}
}

// procStatus reads a kB field of /proc/PID/status, in bytes.
func procStatus(t *testing.T, pid int, field string) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				t.Fatalf("%s: %v", line, err)
			}
			return n << 10
		}
	}
	t.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}

// TestBlockedWriteClosesViewer: a viewer whose socket stays full longer
// than gateway.write_timeout is disconnected, while the turn completes for
// a reading viewer.
func TestBlockedWriteClosesViewer(t *testing.T) {
	t.Parallel()
	f := gt.NewFixture(t, gt.Config{Streaming: true, Extra: "gateway:\n  write_timeout: 1s\n"})
	f.Turns.Set("big", modeltest.Reply{Text: strings.Repeat("w", 2<<20), Chunk: 4096})
	d := f.Start()
	ctx := gt.Context(t, wait)
	owner := d.View(ctx)
	dir := gt.Cwd(t)
	snap := gt.Create(t, owner, protocol.SessionCreateParams{RequestID: gt.Ptr("blocked"), Cwd: &dir})
	ws := rawWS(t, d, 4096)
	resume := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"session.resume","params":{"session_id":%q}}`, snap.SessionID)
	if err := ws.Write(ctx, websocket.MessageText, []byte(resume)); err != nil {
		t.Fatal(err)
	}
	if f := readFrame(t, ws); string(f.ID) != "1" || f.Error != nil {
		t.Fatalf("resume = %+v", f)
	}
	rc := gt.Submit(t, owner, snap.SessionID, "b1", "big")
	gt.AwaitComplete(t, owner, rc.AdmissionID, wait)
	gt.Await(t, wait, func() bool { return strings.Contains(d.Output(), "write blocked longer than the write timeout") })
	for {
		_, b, err := ws.Read(ctx)
		if err != nil {
			return // disconnected
		}
		var fr rawFrame
		_ = json.Unmarshal(b, &fr)
		if fr.Params.Type == protocol.EventMessageComplete {
			t.Fatal("the blocked viewer was kept and got the whole turn")
		}
	}
}
