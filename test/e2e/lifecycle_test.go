package e2e

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	gt "github.com/hermes-gateway/hermes/internal/gatewaytest"
	"github.com/hermes-gateway/hermes/internal/protocol"
)

const wait = 20 * time.Second

// newFixture is a fixture with the default test config.
func newFixture(t *testing.T) *gt.Fixture {
	t.Helper()
	return gt.NewFixture(t, gt.Config{})
}

func TestCreateResumeListInfo(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	d := f.Start()
	ctx := gt.Context(t, wait)
	v1 := d.View(ctx)
	dir := gt.Cwd(t)
	snap := gt.Create(t, v1, protocol.SessionCreateParams{RequestID: gt.Ptr("fresh"), Source: gt.Ptr("cli"), Cwd: &dir})
	if snap.SessionID == "" || snap.SessionID != snap.StoredSessionID {
		t.Fatalf("session_id %q, stored_session_id %q: want equal and non-empty", snap.SessionID, snap.StoredSessionID)
	}
	again := gt.Create(t, v1, protocol.SessionCreateParams{RequestID: gt.Ptr("fresh"), Source: gt.Ptr("cli"), Cwd: &dir})
	if again.SessionID != snap.SessionID {
		t.Errorf("repeated request_id: id %q, want %q", again.SessionID, snap.SessionID)
	}
	v2 := d.View(ctx)
	if got := gt.Resume(t, v2, snap.SessionID); got.SessionID != snap.SessionID {
		t.Errorf("second viewer resume: id %q, want %q", got.SessionID, snap.SessionID)
	}
	list, err := v2.ListSessions(ctx, protocol.SessionListParams{Limit: gt.Ptr(10)})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(list.Sessions, func(s protocol.SessionSummary) bool { return s.SessionID == snap.SessionID }) {
		t.Errorf("session.list %+v does not contain %s", list.Sessions, snap.SessionID)
	}
	info, err := v2.SessionInfo(ctx, snap.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	if info.Source != "cli" || !info.Lazy || info.Cwd != dir || info.Model != "test-model" {
		t.Errorf("session.info = %+v, want source cli, lazy, cwd %s, model test-model", info, dir)
	}
	if code := d.Stop(); code != 0 {
		t.Errorf("SIGTERM: exit code %d, want 0", code)
	}
	db := gt.OpenDB(t, f.Home)
	if n := gt.Count(t, db, `SELECT count(*) FROM sessions WHERE id = ?`, snap.SessionID); n != 1 {
		t.Errorf("sessions rows for %s: %d, want 1", snap.SessionID, n)
	}
	if _, ok := gt.Meta(t, db, "gateway.local_policy.v1:"+snap.SessionID); !ok {
		t.Errorf("no creation receipt in state_meta")
	}
	gt.CheckIntegrity(t, db)
}

func TestCreateIdempotentAcrossKill(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	d := f.Start()
	dir := gt.Cwd(t)
	params := protocol.SessionCreateParams{RequestID: gt.Ptr("keep"), Source: gt.Ptr("gui"), Cwd: &dir, Model: gt.Ptr("frozen-model")}
	first := gt.Create(t, d.View(gt.Context(t, wait)), params)
	epoch := d.Identity().AuthorityEpoch
	d.Kill()

	d = f.Start()
	if got := d.Identity().AuthorityEpoch; got <= epoch {
		t.Errorf("epoch after restart %d, want > %d", got, epoch)
	}
	v := d.View(gt.Context(t, wait))
	again := gt.Create(t, v, params)
	if again.SessionID != first.SessionID || again.Info.Model != "frozen-model" || again.Info.Source != "gui" {
		t.Errorf("re-create after SIGKILL: %s %+v, want %s with the frozen policy", again.SessionID, again.Info, first.SessionID)
	}
	changed := params
	changed.Model = gt.Ptr("other-model")
	if _, err := v.CreateSession(gt.Context(t, wait), changed); gt.Reason(err) != protocol.ReasonInvalidParams {
		t.Errorf("re-create with a changed model: err %v, want invalid_params", err)
	}
}

func TestSecondDaemonExits3(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	d := f.Start()
	second := gt.Launch(t, f.Bin, f.Home)
	if code := second.Wait(); code != 3 {
		t.Fatalf("second daemon exit code %d, want 3; output:\n%s", code, second.Output())
	}
	if out := second.Output(); !containsAny(out, "another gateway", "already") {
		t.Errorf("second daemon message does not say the home is owned:\n%s", out)
	}
	if !d.Alive() {
		t.Errorf("the first daemon died")
	}
	if _, err := d.Status(gt.Context(t, wait)); err != nil {
		t.Errorf("first daemon status: %v", err)
	}
}

func TestDamagedDatabaseExits5(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	d := f.Start()
	gt.Create(t, d.View(gt.Context(t, wait)), protocol.SessionCreateParams{RequestID: gt.Ptr("x"), Cwd: gt.Ptr(gt.Cwd(t))})
	if code := d.Stop(); code != 0 {
		t.Fatalf("stop: exit %d", code)
	}
	path := filepath.Join(f.Home, "state.db")
	damaged := damagePages(t, path)
	second := f.Launch()
	if code := second.Wait(); code != 5 {
		t.Fatalf("damaged db: exit code %d, want 5; output:\n%s", code, second.Output())
	}
	if out := second.Output(); !containsAny(out, "damaged", "corrupt") {
		t.Errorf("exit-5 message does not name the damage:\n%s", out)
	}
	after, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(after) != string(damaged) {
		t.Errorf("state.db bytes changed by the refused start")
	}
}

// damagePages overwrites the middle of every b-tree page after the first
// with garbage, keeping the header valid, and returns the new bytes.
func damagePages(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const page = 4096
	if len(b) < 3*page {
		t.Fatalf("state.db has %d bytes; want at least 3 pages", len(b))
	}
	for off := page; off+page <= len(b); off += page {
		for i := off + 8; i < off+page/2; i++ {
			b[i] ^= 0xA5
		}
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return b
}

func TestBadConfigNamesKey(t *testing.T) {
	t.Parallel()
	cfg := gt.Config{MaxTurns: 1, Extra: "gateway: {max_frame_bytes: 12}\n"}
	f := gt.NewFixture(t, cfg)
	d := f.Launch()
	code := d.Wait()
	if code == 0 {
		t.Fatalf("bad config: exit 0, want non-zero")
	}
	if out := d.Output(); !containsAny(out, "gateway.max_frame_bytes") {
		t.Errorf("bad config message does not name gateway.max_frame_bytes:\n%s", out)
	}
}

func TestOccupiedPort(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	busy := f.Model.URL()[len("http://") : len(f.Model.URL())-len("/v1")]
	d := f.Launch("HERMES_LISTEN=" + busy)
	if code := d.Wait(); code == 0 || code == 3 {
		t.Fatalf("occupied port %s: exit %d, want a runtime error", busy, code)
	}
	if out := d.Output(); !containsAny(out, "cannot listen", "address already in use") {
		t.Errorf("occupied port message unclear:\n%s", out)
	}
}
