package bench

import (
	"context"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/hermes-gateway/hermes/internal/modeltest"
	"github.com/hermes-gateway/hermes/internal/protocol"
	"github.com/hermes-gateway/hermes/internal/session"
	"github.com/hermes-gateway/hermes/internal/store"
)

// history is one cold-start database: sessions created with a receipt,
// terminal admission rows spread evenly over them, and pending (queued)
// rows in sessions of their own, 10 per session.
type history struct {
	sessions, terminal, pending int
}

func (h history) String() string {
	return fmt.Sprintf("sessions=%d/admissions=%d/pending=%d", h.sessions, h.terminal, h.pending)
}

const pendingPerSession = 10

// BenchmarkColdStart: one op = daemon.Run on a copy of a prepared database
// until its ready line (listener bound, control socket up, recovery done),
// then a graceful stop (untimed). The table shows that time to ready grows
// with pending work, not with history. Figures: ready-ms (start → ready),
// open-ms (start → "store opened" log line: lock, quick_check, migrations),
// quick_check-ms (from that line), recover-ms (store opened → ready: epoch,
// orphan scan, restore of the sessions with pending rows, listeners).
func BenchmarkColdStart(b *testing.B) {
	model := coldModel()
	templates := benchHome(b)
	for _, h := range []history{
		{1000, 10000, 0},
		{1000, 10000, 1000},
		{10000, 100000, 0},
		{10000, 100000, 1000},
	} {
		b.Run(h.String(), func(b *testing.B) {
			db := seedOnce(b, templates, model, h)
			benchColdStart(b, db, model)
		})
	}
}

func benchColdStart(b *testing.B, db, modelURL string) {
	var ready, open, check, recoverT latencies
	for b.Loop() {
		b.StopTimer()
		home := benchHome(b)
		writeConfig(b, home, modelURL, "")
		copyFile(b, db, filepath.Join(home, "state.db"))
		b.StartTimer()
		start := time.Now()
		g := launch(home)
		if err := g.awaitReady(time.Minute); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		ready.add(g.ready.at.Sub(start))
		if l, ok := g.log.first("store opened"); ok {
			open.add(l.at.Sub(start))
			recoverT.add(g.ready.at.Sub(l.at))
			if v, ok := l.fields["quick_check_ms"].(float64); ok {
				check.add(time.Duration(v * float64(time.Millisecond)))
			}
		}
		g.shutdown(b)
		_ = os.RemoveAll(home)
		b.StartTimer()
	}
	b.ReportMetric(ms(ready.q(0.5)), "ready-ms")
	b.ReportMetric(ms(open.q(0.5)), "open-ms")
	b.ReportMetric(ms(check.q(0.5)), "quick_check-ms")
	b.ReportMetric(ms(recoverT.q(0.5)), "recover-ms")
}

// coldModel is a fake model for the process lifetime whose replies are held
// until the client goes away: the pending turns scheduled after readiness
// never finish, and the graceful stop interrupts them. Its URL is frozen in
// the seeded receipts, so it must outlive every benchmark that uses them.
var coldModel = sync.OnceValue(func() string {
	m, h := modeltest.NewHandler()
	never := modeltest.NewBarrier()
	m.Handle(func(*modeltest.Request) modeltest.Reply { return modeltest.Reply{Hold: never} })
	return httptest.NewServer(h).URL + "/v1"
})

var (
	seedMu sync.Mutex
	seeded = map[string]string{} // template dir + history → database path; guarded by seedMu
)

// seedOnce builds the database of h under dir once per process (the first
// benchmark run pays for it, untimed) and returns its path. A history with
// pending rows starts from a copy of the same history without them.
func seedOnce(b *testing.B, dir, modelURL string, h history) string {
	b.Helper()
	seedMu.Lock()
	defer seedMu.Unlock()
	b.StopTimer()
	defer b.StartTimer()
	return seedLocked(b, dir, modelURL, h)
}

func seedLocked(b *testing.B, dir, modelURL string, h history) string {
	key := dir + "|" + h.String()
	if p, ok := seeded[key]; ok {
		return p
	}
	var base string
	if h.pending > 0 {
		base = seedLocked(b, dir, modelURL, history{h.sessions, h.terminal, 0})
	}
	start := time.Now()
	p := filepath.Join(dir, "h"+strconv.Itoa(len(seeded)), "state.db")
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		b.Fatal(err)
	}
	if base != "" {
		copyFile(b, base, p)
		h.sessions, h.terminal = 0, 0
	}
	if err := seed(context.Background(), p, dir, modelURL, h); err != nil {
		b.Fatalf("seed %s: %v", h, err)
	}
	b.Logf("seeded %s in %v", key[len(dir)+1:], time.Since(start).Round(time.Millisecond))
	seeded[key] = p
	return p
}

// seed writes h through the store API the way the daemon would have: each
// session as authority.commitCreate writes it (row, route, creation receipt
// from session.Build), each terminal admission inserted, claimed and settled
// completed, each pending one inserted queued. Big transactions: the seed is
// not what is measured.
func seed(ctx context.Context, path, cwd, modelURL string, h history) error {
	st, err := store.Open(ctx, path)
	if err != nil {
		return err
	}
	defer st.Close()
	epoch, _, err := st.BeginEpoch(ctx, "seed")
	if err != nil {
		return err
	}
	pid, err := st.EnsureProfileID(ctx)
	if err != nil {
		return err
	}
	s := seeder{ctx: ctx, st: st, epoch: epoch, subject: "uid:" + strconv.Itoa(os.Getuid()), cwd: cwd,
		defaults: session.Defaults{ProfileID: pid, HomeDir: cwd, Model: "fake-model", BaseURL: modelURL, MaxTurns: 90}}
	per := h.terminal / max(h.sessions, 1)
	if err := s.batch(h.sessions, per, false, "h"); err != nil {
		return err
	}
	if err := s.batch(h.pending/pendingPerSession, pendingPerSession, true, "p"); err != nil {
		return err
	}
	return st.Checkpoint(ctx)
}

type seeder struct {
	ctx      context.Context
	st       *store.Store
	epoch    int64
	subject  string
	cwd      string
	defaults session.Defaults
}

// batch creates n sessions with rows admissions each, 200 sessions per
// transaction.
func (s *seeder) batch(n, rows int, pending bool, prefix string) error {
	const perTx = 200
	for lo := 0; lo < n; lo += perTx {
		err := s.st.InTx(s.ctx, s.epoch, func(tx *store.Tx) error {
			for i := lo; i < min(lo+perTx, n); i++ {
				sid, err := s.create(tx, prefix+"-"+strconv.Itoa(i))
				if err != nil {
					return err
				}
				if err := s.admissions(tx, sid, rows, pending); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// create mirrors authority.commitCreate.
func (s *seeder) create(tx *store.Tx, requestID string) (string, error) {
	toolsets := []string{}
	launch, err := session.Build(protocol.SessionCreateParams{RequestID: &requestID, Cwd: &s.cwd, Toolsets: &toolsets},
		s.subject, s.defaults, time.Now().UTC())
	if err != nil {
		return "", err
	}
	r := launch.Receipt
	raw, err := session.CanonicalJSON(r)
	if err != nil {
		return "", err
	}
	now := time.Now().UnixMilli()
	if err := tx.InsertSession(store.Session{ID: r.SessionID, Source: r.Policy.Source, UserID: r.PrincipalID,
		SessionKey: r.Route, ChatID: r.SessionID, Model: r.Policy.Model, Cwd: r.Policy.Cwd, Title: r.Policy.Title,
		Hidden: r.Policy.Hidden, ModelConfig: "{}", StartedAtMs: now}); err != nil {
		return "", err
	}
	entry, err := session.CanonicalJSON(r.Entry)
	if err != nil {
		return "", err
	}
	if err := tx.PutRoute(store.Route{SessionKey: r.Route, EntryJSON: string(entry), UpdatedAtMs: now}); err != nil {
		return "", err
	}
	return r.SessionID, tx.PutMeta(session.ReceiptKey(r.SessionID), string(raw))
}

// admissions inserts rows admissions into sid: queued when pending, else
// claimed and settled completed one after the other, as the FIFO would.
func (s *seeder) admissions(tx *store.Tx, sid string, rows int, pending bool) error {
	payload := `{"input":{"text":"` + submitText + `"},"intent":"queue"}`
	for i := range rows {
		if _, err := tx.InsertAdmission(store.Admission{RequestID: "r-" + strconv.Itoa(i), PrincipalID: s.subject,
			TargetSessionID: sid, PayloadJSON: payload, PayloadDigest: randomID()}); err != nil {
			return err
		}
		if pending {
			continue
		}
		a, ok, err := tx.ClaimNext(sid)
		if err != nil || !ok {
			return fmt.Errorf("claim %s: ok=%v err=%v", sid, ok, err)
		}
		if _, err := tx.Settle(a.AdmissionID, a.Generation, protocol.OutcomeCompleted, ""); err != nil {
			return err
		}
	}
	return nil
}

func copyFile(b *testing.B, from, to string) {
	b.Helper()
	src, err := os.Open(from)
	if err != nil {
		b.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		b.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		b.Fatal(err)
	}
}
