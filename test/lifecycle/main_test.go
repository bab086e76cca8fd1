// Package lifecycle tests how the real hermes binary ends and comes back
// (docs/protocol.md#recovery): a graceful SIGTERM in the middle of a tool that ends
// within gateway.shutdown_timeout and of one that does not (F13), the
// runtime_draining window, the WAL checkpoint of a clean stop, the tool
// process group after a SIGKILL of the daemon (F6), and a paused daemon
// whose epoch was taken over while it was stopped (F19, the stale side).
//
// Tool processes are found and checked through /proc (Linux only): a tool
// is a child of the daemon whose environment carries HERMES_TOOL_PROCESS=1
// and which leads its own process group.
package lifecycle

import (
	"os"
	"testing"
	"time"

	gt "github.com/hermes-gateway/hermes/internal/gatewaytest"
	"github.com/hermes-gateway/hermes/internal/protocol"
)

func TestMain(m *testing.M) { os.Exit(gt.Main(m)) }

// wait bounds every wait on a condition.
const wait = 20 * time.Second

// scenario is one daemon home with a viewer on its current daemon.
type scenario struct {
	t *testing.T
	f *gt.Fixture
	v *gt.Recorder // viewer on the current daemon
}

// newScenario builds the plain binary and a home whose gateway has the
// given shutdown_timeout ("" = the default).
func newScenario(t *testing.T, shutdownTimeout string) *scenario {
	t.Helper()
	cfg := gt.Config{NoCompression: true}
	if shutdownTimeout != "" {
		cfg.Extra = "gateway: {shutdown_timeout: " + shutdownTimeout + "}\n"
	}
	return &scenario{t: t, f: gt.NewFixture(t, cfg)}
}

// start starts a daemon and connects a recorded viewer to it.
func (s *scenario) start() *gt.Daemon {
	s.t.Helper()
	d := s.f.Start()
	s.v = d.View(gt.Context(s.t, wait))
	return d
}

// create creates a session in a fresh directory.
func (s *scenario) create(requestID string) string {
	s.t.Helper()
	dir := gt.Cwd(s.t)
	return gt.Create(s.t, s.v, protocol.SessionCreateParams{RequestID: &requestID, Cwd: &dir}).SessionID
}

// receipt reads an admission's receipt on the current daemon.
func (s *scenario) receipt(sid, admissionID string) protocol.Receipt {
	s.t.Helper()
	return gt.Receipt(s.t, s.v, sid, admissionID)
}

// awaitStatus polls prompt.receipt until the admission has status.
func (s *scenario) awaitStatus(sid, admissionID, status string) protocol.Receipt {
	s.t.Helper()
	return gt.AwaitStatus(s.t, s.v, sid, admissionID, status, wait)
}
