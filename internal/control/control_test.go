package control

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/hermes-gateway/hermes/internal/auth"
	"github.com/hermes-gateway/hermes/internal/protocol"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const (
	testProfile  = "profile-a"
	testInstance = "inst-1"
)

// fakeHandler serves a fixed identity and a real ticket store.
type fakeHandler struct {
	tickets *auth.Tickets
	mu      sync.Mutex
	status  Status // guarded by mu
	err     error  // guarded by mu; returned by Status
}

func newFakeHandler() *fakeHandler {
	id := Identity{
		State: StateReady, PID: os.Getpid(), InstanceID: testInstance, AuthorityEpoch: 7,
		ProfileID: testProfile, APIOrigin: "http://127.0.0.1:43817",
		Capabilities: protocol.RuntimeCapabilities,
	}
	return &fakeHandler{
		tickets: auth.NewTickets(testProfile, testInstance),
		status:  Status{Identity: id, SessionsLive: 2, AdmissionsQueued: 3, AdmissionsRunning: 1, AdmissionsUnknown: 4},
	}
}

func (h *fakeHandler) Identify() Identity {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.status.Identity
}

func (h *fakeHandler) Status(context.Context) (Status, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.status, h.err
}

func (h *fakeHandler) MintTicket(peer auth.Peer, subject, profileID, instanceID, purpose string) (string, error) {
	return h.tickets.MintFor(peer, subject, profileID, instanceID, purpose)
}

// privateDir returns a fresh directory with the given mode.
func privateDir(t testing.TB, mode os.FileMode) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "home")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, mode); err != nil {
		t.Fatal(err)
	}
	return dir
}

// startServer listens in a fresh home and runs the server until cleanup.
func startServer(t testing.TB, h Handler, opts Options) (*Server, string) {
	t.Helper()
	path := filepath.Join(privateDir(t, 0o755), "gateway.sock")
	srv, err := Listen(path, h, opts)
	if err != nil {
		t.Fatalf("Listen: %v", err)
	}
	runServer(t, srv)
	return srv, path
}

func runServer(t testing.TB, srv *Server) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
}

// rawCall writes line as is and returns the decoded reply.
func rawCall(t *testing.T, path string, line []byte) reply {
	t.Helper()
	c, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	writeErr := make(chan error, 1)
	go func() {
		_, err := c.Write(line)
		if err == nil {
			err = c.(*net.UnixConn).CloseWrite() // the last line may lack its newline
		}
		writeErr <- err
	}()
	b, err := bufio.NewReader(c).ReadBytes('\n')
	if err != nil {
		t.Fatalf("read reply: %v (got %q)", err, b)
	}
	c.Close()
	<-writeErr
	var rep reply
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatalf("reply %q: %v", b, err)
	}
	return rep
}

func ticketParams(purpose string) TicketParams {
	return TicketParams{ProfileID: testProfile, InstanceID: testInstance, Purpose: purpose}
}

func TestIdentifyAndStatus(t *testing.T) {
	t.Parallel()
	h := newFakeHandler()
	_, path := startServer(t, h, Options{})
	ctx := t.Context()

	var id Identity
	if err := Call(ctx, path, VerbIdentify, nil, &id); err != nil {
		t.Fatalf("identify: %v", err)
	}
	if diff := cmp.Diff(h.status.Identity, id); diff != "" {
		t.Errorf("identify (-want +got):\n%s", diff)
	}
	var st Status
	if err := Call(ctx, path, VerbStatus, struct{}{}, &st); err != nil {
		t.Fatalf("status: %v", err)
	}
	if diff := cmp.Diff(h.status, st); diff != "" {
		t.Errorf("status (-want +got):\n%s", diff)
	}
	rep := rawCall(t, path, []byte(`{"protocol":1,"id":"s1","verb":"status"}`+"\n"))
	for _, key := range []string{`"sessions_live":2`, `"admissions_queued":3`, `"admissions_running":1`, `"admissions_unknown":4`, `"instance_id":"inst-1"`, `"capabilities":["session-authority-v1"`} {
		if !strings.Contains(string(rep.Result), key) {
			t.Errorf("status result %s lacks %s", rep.Result, key)
		}
	}
	if !rep.OK || string(rep.ID) != `"s1"` || rep.Protocol != 1 {
		t.Errorf("status envelope = %+v", rep)
	}
}

func TestStatusErrorIsNotLeaked(t *testing.T) {
	t.Parallel()
	h := newFakeHandler()
	h.err = errors.New("sqlite: disk I/O error at /secret/path")
	_, path := startServer(t, h, Options{})
	err := Call(t.Context(), path, VerbStatus, nil, nil)
	var re *RemoteError
	if !errors.As(err, &re) || re.Text != "status unavailable" {
		t.Errorf("status error = %v", err)
	}
}

// syncBuffer is a log sink safe for the server's goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf strings.Builder // guarded by mu
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestSessionTicketRoundTrip(t *testing.T) {
	t.Parallel()
	h := newFakeHandler()
	var logs syncBuffer
	logger := slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	_, path := startServer(t, h, Options{Logger: logger})
	uid := os.Getuid()
	cases := []struct{ purpose, subject string }{
		{auth.PurposeInteractive, auth.NativeSubject(uid)},
		{auth.PurposeDashboardLogin, auth.DashboardLinkSubject(uid)},
	}
	for _, c := range cases {
		var res TicketResult
		if err := Call(t.Context(), path, VerbSessionTicket, ticketParams(c.purpose), &res); err != nil {
			t.Fatalf("%s: %v", c.purpose, err)
		}
		for _, verb := range []string{VerbIdentify, VerbStatus} {
			if rep := rawCall(t, path, []byte(`{"protocol":1,"id":1,"verb":"`+verb+`"}`)); strings.Contains(string(rep.Result), res.Ticket) {
				t.Errorf("%s reveals a ticket", verb)
			}
		}
		// A failing request after the mint, so the log has content.
		_ = Call(t.Context(), path, VerbSessionTicket, TicketParams{Purpose: c.purpose}, nil)
		if strings.Contains(logs.String(), res.Ticket) {
			t.Errorf("ticket in the log: %s", logs.String())
		}
		g, err := h.tickets.Redeem(res.Ticket, c.purpose)
		if err != nil {
			t.Fatalf("redeem %s ticket: %v", c.purpose, err)
		}
		if g.Subject != c.subject {
			t.Errorf("%s subject = %q, want %q", c.purpose, g.Subject, c.subject)
		}
	}
}

func TestSessionTicketRefusals(t *testing.T) {
	t.Parallel()
	_, path := startServer(t, newFakeHandler(), Options{})
	cases := []struct {
		name   string
		params any
		want   string
	}{
		{"stale instance", TicketParams{testProfile, "inst-0", auth.PurposeInteractive}, auth.ErrStaleInstance.Error()},
		{"foreign profile", TicketParams{"profile-b", testInstance, auth.PurposeInteractive}, auth.ErrForeignProfile.Error()},
		{"unknown purpose", TicketParams{testProfile, testInstance, "worker-adoption"}, `unknown purpose "worker-adoption"`},
		{"extra param", map[string]any{"profile_id": testProfile, "instance_id": testInstance, "purpose": "interactive", "subject": "uid:0"}, "invalid params"},
		{"case variant", map[string]any{"Profile_ID": testProfile, "instance_id": testInstance, "purpose": "interactive"}, "invalid params"},
	}
	for _, c := range cases {
		err := Call(t.Context(), path, VerbSessionTicket, c.params, nil)
		var re *RemoteError
		if !errors.As(err, &re) || !strings.Contains(re.Text, c.want) {
			t.Errorf("%s: err = %v, want text %q", c.name, err, c.want)
		}
	}
}

func TestMalformedRequests(t *testing.T) {
	t.Parallel()
	_, path := startServer(t, newFakeHandler(), Options{})
	cases := []struct {
		name, line, id, want string
	}{
		{"not json", "hello\n", "null", "malformed request"},
		{"not an object", "[1,2]\n", "null", "malformed request"},
		{"empty line", "\n", "null", "malformed request"},
		{"duplicate key", `{"protocol":1,"id":1,"verb":"identify","verb":"status"}` + "\n", "null", "malformed request"},
		{"case variant", `{"protocol":1,"id":1,"Verb":"identify"}` + "\n", "null", "malformed request"},
		{"unknown envelope key", `{"protocol":1,"id":1,"verb":"identify","caps":["session:operator"]}` + "\n", "null", "malformed request"},
		{"wrong protocol", `{"protocol":2,"id":5,"verb":"identify"}` + "\n", "5", "unsupported protocol 2"},
		{"no protocol", `{"id":5,"verb":"identify"}` + "\n", "5", "unsupported protocol 0"},
		{"unknown verb", `{"protocol":1,"id":"x","verb":"shutdown"}` + "\n", `"x"`, `unknown verb "shutdown"`},
		{"params on identify", `{"protocol":1,"id":6,"verb":"identify","params":{"a":1}}` + "\n", "6", "takes no params"},
		{"params not object", `{"protocol":1,"id":6,"verb":"session-ticket","params":"x"}` + "\n", "6", "invalid params"},
		{"trailing data", `{"protocol":1,"id":6,"verb":"identify"} {}` + "\n", "null", "malformed request"},
	}
	for _, c := range cases {
		rep := rawCall(t, path, []byte(c.line))
		if rep.OK || rep.Protocol != 1 || string(rep.ID) != c.id || !strings.Contains(rep.Error, c.want) {
			t.Errorf("%s: reply %+v, want error containing %q and id %s", c.name, rep, c.want, c.id)
		}
	}
}

func TestOversizeRequest(t *testing.T) {
	t.Parallel()
	_, path := startServer(t, newFakeHandler(), Options{})
	big := fmt.Sprintf(`{"protocol":1,"id":1,"verb":"identify","params":{"pad":%q}}`+"\n", strings.Repeat("x", MaxRequestBytes))
	rep := rawCall(t, path, []byte(big))
	if rep.OK || !strings.Contains(rep.Error, "request too large") {
		t.Errorf("oversize reply = %+v", rep)
	}
	// A line of exactly the limit is read (and then judged on its content).
	exact := `{"protocol":1,"id":1,"verb":"identify"}`
	exact += strings.Repeat(" ", MaxRequestBytes-len(exact)-1) + "\n"
	if rep := rawCall(t, path, []byte(exact)); !rep.OK {
		t.Errorf("request at the limit refused: %+v", rep)
	}
}
