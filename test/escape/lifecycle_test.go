package escape

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	gt "github.com/hermes-gateway/hermes/internal/gatewaytest"
	"github.com/hermes-gateway/hermes/internal/protocol"
)

// 9. Killing the turn kills what the command left running: a background
// child that holds an exclusive flock on a file in the cwd, once plainly
// backgrounded (same process group) and once detached (setsid -f, its own
// session and process group). After session.interrupt the test can take
// the lock: the holder is gone, no orphan.
func TestEscapeInterruptKillsBackground(t *testing.T) {
	t.Parallel()
	hold := "exec 9>held.lock; flock 9; touch held.ok; exec sleep 1000"
	for _, c := range []struct {
		name, start, offReason string
	}{
		{"plain", "( " + hold + " ) >/dev/null 2>&1 </dev/null &", ""},
		{"detached", detach(hold), "a setsid process leaves the process group the terminal tool kills; only the sandbox's pid namespace takes it down"},
	} {
		fallbackReason := ""
		if c.name == "detached" {
			fallbackReason = "level landlock+seccomp has no pid namespace: only the process group ends background children " +
				"(documented in internal/sandbox/sandbox.go), and setsid leaves it"
		}
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			inModesExcept(t, c.offReason, fallbackReason, func(t *testing.T, mode string) {
				w := newWorld(t, mode, worldOpts{})
				cwd := gt.Cwd(t)
				lock := filepath.Join(cwd, "held.lock")
				t.Cleanup(func() { killHolders(lock) })
				s := w.session(cwd, true)
				w.f.Turns.Set("hold", toolCall(c.start+"\n"+awaitFile("held.ok")+"; echo HOLDING; exec sleep 1000"), textReply("hold_DONE"))
				rc := gt.Submit(t, w.v, s.SessionID, "hold", "hold")
				gt.Await(t, wait, func() bool { return exists(filepath.Join(cwd, "held.ok")) })
				snap := gt.Resume(t, w.v, s.SessionID)
				if _, err := w.v.InterruptSession(gt.Context(t, wait), protocol.SessionInterruptParams{SessionID: s.SessionID,
					ExecutionGeneration: snap.ExecutionGeneration}); err != nil {
					t.Fatalf("session.interrupt: %v", err)
				}
				if mc := gt.AwaitComplete(t, w.v, rc.AdmissionID, wait); mc.Outcome != protocol.OutcomeInterrupted {
					t.Errorf("outcome %q, want interrupted", mc.Outcome)
				}
				if !unlockedWithin(lock) {
					t.Errorf("HOLE: the background child the command started still holds %s %v after the turn was interrupted (an orphan)", lock, wait)
				}
			})
		})
	}
}

// Strict where the full sandbox cannot be built (the daemon cannot create
// user namespaces): the tool call fails, the command never runs bare.
// Effect: the file the command would create does not exist. It runs in
// TestEscapeLandlockFallback's inner run.
func TestEscapeStrictNeverRunsBare(t *testing.T) {
	t.Parallel()
	if !insideFallback() {
		t.Skip("runs inside TestEscapeLandlockFallback, where user namespaces cannot be created")
	}
	w := newWorld(t, modeFallback, worldOpts{strictNoUserns: true})
	cwd := gt.Cwd(t)
	s := w.session(cwd, true)
	w.script("strictbare", "touch ran.marker")
	rc := gt.Submit(t, w.v, s.SessionID, "strictbare", "strictbare")
	gt.AwaitComplete(t, w.v, rc.AdmissionID, wait)
	out := w.toolOutput("strictbare")
	t.Logf("tool output:\n%s", out)
	absent(filepath.Join(cwd, "ran.marker")).check(t)
	if strings.Contains(out, marker("strictbare", 0)) {
		t.Errorf("HOLE: strict ran the command although the full sandbox cannot be built here")
	}
}

// TestEscapeLandlockFallback runs the whole suite again at the level auto
// falls back to where user namespaces are unavailable (landlock+seccomp:
// no pid or mount namespace): this test binary re-executed inside a user
// namespace that can create none. Each inner failure is reported here.
func TestEscapeLandlockFallback(t *testing.T) {
	if insideFallback() {
		t.Skip("this is the inner run")
	}
	t.Parallel()
	if err := fallbackPossible(); err != nil {
		t.Skipf("cannot run a process tree without user namespaces here (unshare -Ur, max_user_namespaces=0): %v", err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := noUsernsCommand(self, "-test.run", "^TestEscape", "-test.v", "-test.count=1", "-test.timeout=150s")
	cmd.Env = append(os.Environ(), fallbackEnv+"=1")
	out, err := cmd.CombinedOutput()
	t.Logf("inner run (landlock+seccomp fallback):\n%s", out)
	for _, line := range strings.Split(string(out), "\n") {
		if l := strings.TrimSpace(line); strings.HasPrefix(l, "--- FAIL:") {
			t.Errorf("at the landlock+seccomp fallback level: %s", l)
		}
	}
	if err != nil && !t.Failed() {
		t.Errorf("inner run: %v", err)
	}
}
