package store_test

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/hermes-gateway/hermes/internal/store"
)

// Both benchmarks commit one admission-shaped row per iteration to a
// migrated database with the same pragmas (WAL, synchronous FULL, BEGIN
// IMMEDIATE), so their ratio is the cost of the store's durable
// prompt.submit path over a bare insert+commit.

const benchPayload = `{"input":{"text":"hello world, please refactor the store"},"intent":"queue"}`

// BenchmarkRawInsertCommit: BEGIN IMMEDIATE; one prepared INSERT; COMMIT.
func BenchmarkRawInsertCommit(b *testing.B) {
	ctx := context.Background()
	db := rawWriter(b)
	ins, err := db.PrepareContext(ctx, `INSERT INTO session_admissions (admission_id, request_id, principal_id,
	target_session_id, lineage_json, payload_json, payload_digest, intent, status, owner_epoch, created_at_ms)
	VALUES (?, ?, 'uid:1000', 'local-bench', '["local-bench"]', ?, 'digest', 'queue', 'queued', 1, 1)`)
	if err != nil {
		b.Fatal(err)
	}
	defer ins.Close()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			b.Fatal(err)
		}
		// A random admission id like the store's (a sequential one would
		// flatter the baseline: it appends to the unique index).
		if _, err := tx.StmtContext(ctx, ins).ExecContext(ctx, randomID(), "req-"+strconv.Itoa(i), benchPayload); err != nil {
			b.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
	}
}

// rawWriter migrates a database with one session, then opens it with the
// store's writer pragmas but none of its code.
func rawWriter(b *testing.B) *sql.DB {
	ctx := context.Background()
	path := filepath.Join(b.TempDir(), "state.db")
	s, err := store.Open(ctx, path)
	if err != nil {
		b.Fatal(err)
	}
	epoch, _, _ := s.BeginEpoch(ctx, "bench")
	addSession(b, s, epoch, "local-bench")
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)&_pragma=foreign_keys(1)"+
		"&_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)&_txlock=immediate")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = db.Close() })
	db.SetMaxOpenConns(1)
	return db
}

func randomID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// BenchmarkInTxAdmission: the durable prompt.submit transaction: epoch
// fence, idempotency lookup, queued row, session.info journal event.
func BenchmarkInTxAdmission(b *testing.B) {
	ctx := context.Background()
	s, epoch := openEpoch(b)
	addSession(b, s, epoch, "local-bench")
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		req := "req-" + strconv.Itoa(i)
		err := s.InTx(ctx, epoch, func(tx *store.Tx) error {
			if _, ok, err := tx.AdmissionByKey("uid:1000", "local-bench", req); err != nil || ok {
				return err
			}
			a, err := tx.InsertAdmission(store.Admission{RequestID: req, PrincipalID: "uid:1000",
				TargetSessionID: "local-bench", PayloadJSON: benchPayload, PayloadDigest: "digest"})
			if err != nil {
				return err
			}
			_, err = tx.AppendEvent("local-bench", store.Event{Type: "session.info",
				PayloadJSON: `{"pending":1}`, AdmissionID: a.AdmissionID})
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkOpenQuickCheck reports the start-up quick_check on a database
// with some history.
func BenchmarkOpenQuickCheck(b *testing.B) {
	ctx := context.Background()
	s, path := openTemp(b)
	epoch, _, _ := s.BeginEpoch(ctx, "bench")
	addSession(b, s, epoch, "local-bench")
	mustTx(b, s, epoch, func(tx *store.Tx) error {
		for range 2000 {
			if _, err := tx.AppendMessage(store.Message{SessionID: "local-bench", Role: "user", Content: benchPayload}); err != nil {
				return err
			}
			if _, err := tx.AppendEvent("local-bench", store.Event{Type: "message.complete", PayloadJSON: benchPayload}); err != nil {
				return err
			}
		}
		return nil
	})
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
	var total float64
	for b.Loop() {
		s2, err := store.Open(ctx, path)
		if err != nil {
			b.Fatal(err)
		}
		total += float64(s2.QuickCheckDuration().Microseconds())
		_ = s2.Close()
	}
	b.ReportMetric(total/float64(b.N), "quick_check-µs/op")
}

// BenchmarkAdmissionLifecycle: one row through every write a turn makes of
// it, each its own transaction as the authority commits them: admit
// (AdmitOnce), claim (ClaimNext: generation+1, queued → started) and settle
// (Settle: result, started → terminal, revision+1). Each step is reported in
// µs/op of its own, so a change to the claim or settle path shows there.
func BenchmarkAdmissionLifecycle(b *testing.B) {
	s, epoch := openEpoch(b)
	addSession(b, s, epoch, "local-bench")
	var admit, claim, settle time.Duration
	for i := 0; b.Loop(); i++ {
		req := "req-" + strconv.Itoa(i)
		t0 := time.Now()
		mustTx(b, s, epoch, func(tx *store.Tx) error {
			_, _, err := tx.AdmitOnce(store.Admission{RequestID: req, PrincipalID: "uid:1000",
				TargetSessionID: "local-bench", PayloadJSON: benchPayload, PayloadDigest: "digest"})
			return err
		})
		t1 := time.Now()
		var a store.Admission
		mustTx(b, s, epoch, func(tx *store.Tx) error {
			var ok bool
			var err error
			if a, ok, err = tx.ClaimNext("local-bench"); err == nil && !ok {
				b.Fatal("nothing to claim")
			}
			return err
		})
		t2 := time.Now()
		mustTx(b, s, epoch, func(tx *store.Tx) error {
			_, err := tx.Settle(a.AdmissionID, a.Generation, "completed", `{"text":"done"}`)
			return err
		})
		admit, claim, settle = admit+t1.Sub(t0), claim+t2.Sub(t1), settle+time.Since(t2)
	}
	n := float64(b.N) * float64(time.Microsecond)
	b.ReportMetric(float64(admit)/n, "admit-µs/op")
	b.ReportMetric(float64(claim)/n, "claim-µs/op")
	b.ReportMetric(float64(settle)/n, "settle-µs/op")
}
