package lifecycle

import (
	"testing"
	"time"

	gt "github.com/hermes-gateway/hermes/internal/gatewaytest"
	"github.com/hermes-gateway/hermes/internal/modeltest"
	"github.com/hermes-gateway/hermes/internal/protocol"
)

// TestKillDuringTool: F6. SIGKILL of the daemon while the terminal tool
// runs `sleep 30`. When bash execs sleep, sleep carries the tool's
// Pdeathsig and dies with the daemon. When bash forks it (a command after
// it), sleep outlives bash; the restarted daemon kills the recorded group
// during recovery, before it is ready. Either way the row is unknown after
// the restart and the command never runs again.
func TestKillDuringTool(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name      string
		after     string // shell text after `sleep 30`
		pdeathsig bool   // the group dies with the daemon already
	}{
		{name: "exec", pdeathsig: true},
		{name: "fork", after: "; echo after"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := newScenario(t, "")
			l := s.f.Ledger
			cmd := l.Command("long") + "; sleep 30" + c.after
			s.f.Turns.Set("LONG", modeltest.ToolCall("terminal", gt.TerminalArgs(cmd)), modeltest.Text("never"))
			d := s.start()
			sid := s.create("f6")
			rc := gt.Submit(t, s.v, sid, "long", "LONG")
			pgid := awaitToolGroup(t, d.PID(), "sleep 30")
			d.Kill()
			if c.pdeathsig {
				awaitGroupGone(t, pgid, 5*time.Second)
			}
			s.start()
			awaitGroupGone(t, pgid, time.Second) // at the latest, recovery killed it
			if got := s.receipt(sid, rc.AdmissionID); got.Status != protocol.StatusUnknown {
				t.Errorf("after restart: status %q, want unknown", got.Status)
			}
			if n := gt.FirstRequests(s.f.Model, "LONG"); n != 1 {
				t.Errorf("LONG started %d times, want 1", n)
			}
			if n := l.Count(t, "long"); n != 1 {
				t.Errorf("the command ran %d times, want 1", n)
			}
			if code := s.f.D.Stop(); code != 0 {
				t.Errorf("SIGTERM: exit code %d, want 0", code)
			}
		})
	}
}
