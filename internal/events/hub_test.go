package events

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"
	"golang.org/x/sync/errgroup"

	"github.com/hermes-gateway/hermes/internal/protocol"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// journal models the store's journal: Append assigns the next seq and must
// be called inside Commit (under the session lock), like tx.AppendEvent.
type journal struct {
	seq int64 // guarded by the hub's session lock
}

func (j *journal) append(typ string) []protocol.Event {
	j.seq++
	return []protocol.Event{{Type: typ, SessionID: "s", Seq: j.seq, ReplayEpoch: "e1", Payload: json.RawMessage(`{}`)}}
}

func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// drainUntil reads s until it has seen seq last (or the stream ends).
func drainUntil(ctx context.Context, s *Subscription, last int64) ([]int64, error) {
	var seqs []int64
	for len(seqs) == 0 || seqs[len(seqs)-1] < last {
		evs, err := s.Next(ctx)
		if err != nil {
			return seqs, err
		}
		for _, ev := range evs {
			seqs = append(seqs, ev.Seq)
		}
	}
	return seqs, nil
}

func delta(typ, text string) protocol.Event {
	p, _ := json.Marshal(protocol.DeltaPayload{Text: text})
	return protocol.Event{Type: typ, SessionID: "s", AdmissionID: "a1", Payload: p}
}

func TestOrderingAcrossSubscribers(t *testing.T) {
	t.Parallel()
	const writers, perWriter, viewers = 4, 250, 8
	const total = writers * perWriter
	ctx := testCtx(t)
	h := NewHub(Options{Buffer: total + 1})
	var j journal
	subs := make([]*Subscription, viewers)
	for i := range subs {
		s, err := h.Subscribe("s", func() error { return nil })
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		subs[i] = s
	}
	got := make([][]int64, viewers)
	var g errgroup.Group
	for i, s := range subs {
		g.Go(func() (err error) { got[i], err = drainUntil(ctx, s, total); return err })
	}
	for w := range writers {
		g.Go(func() error {
			for range perWriter {
				if err := h.Commit("s", func() ([]protocol.Event, error) {
					return j.append(fmt.Sprintf("w%d", w)), nil
				}); err != nil {
					return err
				}
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	want := seqRange(1, total)
	for i := range got {
		if d := cmp.Diff(want, got[i]); d != "" {
			t.Fatalf("viewer %d: not the journal order (-want +got):\n%s", i, d)
		}
	}
}

func seqRange(from, to int64) []int64 {
	seqs := make([]int64, 0, max(0, to-from+1))
	for seq := from; seq <= to; seq++ {
		seqs = append(seqs, seq)
	}
	return seqs
}

// A Commit racing a Subscribe is in the snapshot or in the stream: exactly once.
func TestSnapshotThenSubscribeExact(t *testing.T) {
	t.Parallel()
	const commits, subscribers = 500, 16
	ctx := testCtx(t)
	h := NewHub(Options{Buffer: commits + 1})
	var j journal
	type result struct {
		snapshot int64
		sub      *Subscription
	}
	results := make([]result, subscribers)
	var g errgroup.Group
	g.Go(func() error {
		for range commits {
			_ = h.Commit("s", func() ([]protocol.Event, error) { return j.append("x"), nil })
		}
		return nil
	})
	for i := range results {
		g.Go(func() error {
			s, err := h.Subscribe("s", func() error { results[i].snapshot = j.seq; return nil })
			results[i].sub = s
			return err
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	for i, r := range results {
		defer r.sub.Close()
		if r.snapshot == commits {
			continue // nothing after the snapshot; Next would block
		}
		seqs, err := drainUntil(ctx, r.sub, commits)
		if err != nil {
			t.Fatalf("subscriber %d: %v", i, err)
		}
		if d := cmp.Diff(seqRange(r.snapshot+1, commits), seqs); d != "" {
			t.Fatalf("subscriber %d (snapshot at %d): stream (-want +got):\n%s", i, r.snapshot, d)
		}
	}
}

func TestLaggingSubscriberCutOff(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	h := NewHub(Options{Buffer: 4})
	var j journal
	slow, _ := h.Subscribe("s", func() error { return nil })
	defer slow.Close()
	fast, _ := h.Subscribe("s", func() error { return nil })
	defer fast.Close()
	var fastSeqs []int64
	for range 10 {
		if err := h.Commit("s", func() ([]protocol.Event, error) { return j.append("x"), nil }); err != nil {
			t.Fatal(err)
		}
		evs, err := fast.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range evs {
			fastSeqs = append(fastSeqs, ev.Seq)
		}
	}
	if d := cmp.Diff([]int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, fastSeqs); d != "" {
		t.Fatalf("fast viewer lost events (-want +got):\n%s", d)
	}
	evs, err := slow.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	gap, _ := json.Marshal(protocol.ReplayGapPayload{ReplayEpoch: "e1", LatestSeq: 5})
	want := []protocol.Event{{Type: protocol.EventReplayGap, SessionID: "s", ReplayEpoch: "e1", Payload: gap}}
	if d := cmp.Diff(want, evs); d != "" {
		t.Fatalf("slow viewer (-want +got):\n%s", d)
	}
	if _, err := slow.Next(ctx); !errors.Is(err, ErrCutOff) {
		t.Fatalf("Next after gap = %v, want ErrCutOff", err)
	}
	if n := h.Subscribers("s"); n != 1 {
		t.Fatalf("Subscribers = %d, want 1 (the slow one is removed)", n)
	}
}

func TestDeltaCoalescing(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	h := NewHub(Options{Buffer: 3})
	s, _ := h.Subscribe("s", func() error { return nil })
	defer s.Close()
	other := delta(protocol.EventMessageDelta, "z")
	other.AdmissionID = "a2"
	h.Publish("s", delta(protocol.EventMessageDelta, "a"), delta(protocol.EventMessageDelta, "b"))
	for range 1000 {
		h.Publish("s", delta(protocol.EventMessageDelta, "c"))
	}
	h.Publish("s",
		delta(protocol.EventReasoningDelta, "r1"), delta(protocol.EventReasoningDelta, "r2"),
		other)
	evs, err := s.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []protocol.Event{
		delta(protocol.EventMessageDelta, "ab"+strings.Repeat("c", 1000)),
		delta(protocol.EventReasoningDelta, "r1r2"),
		other,
	}
	if d := cmp.Diff(want, evs); d != "" {
		t.Fatalf("coalesced queue (-want +got):\n%s", d)
	}
}

// A journaled event between two deltas keeps them apart: order is kept.
func TestDeltaNotMergedAcrossEvents(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	h := NewHub(Options{})
	s, _ := h.Subscribe("s", func() error { return nil })
	defer s.Close()
	mid := protocol.Event{Type: protocol.EventToolStart, SessionID: "s", Seq: 7, Payload: json.RawMessage(`{}`)}
	h.Publish("s", delta(protocol.EventMessageDelta, "a"), mid, delta(protocol.EventMessageDelta, "b"))
	evs, err := s.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []protocol.Event{delta(protocol.EventMessageDelta, "a"), mid, delta(protocol.EventMessageDelta, "b")}
	if d := cmp.Diff(want, evs); d != "" {
		t.Fatalf("(-want +got):\n%s", d)
	}
}

func TestCloseUnblocksNext(t *testing.T) {
	t.Parallel()
	h := NewHub(Options{})
	s, _ := h.Subscribe("s", func() error { return nil })
	errc := make(chan error, 1)
	go func() {
		_, err := s.Next(context.Background())
		errc <- err
	}()
	s.Close()
	if err := <-errc; !errors.Is(err, io.EOF) {
		t.Fatalf("Next after Close = %v, want io.EOF", err)
	}
	s.Close() // idempotent
	if n := h.Subscribers("s"); n != 0 {
		t.Fatalf("Subscribers = %d after Close", n)
	}
}

func TestNextHonoursContext(t *testing.T) {
	t.Parallel()
	h := NewHub(Options{})
	s, _ := h.Subscribe("s", func() error { return nil })
	defer s.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Next(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Next = %v, want context.Canceled", err)
	}
}

func TestFailuresPublishNothing(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	h := NewHub(Options{})
	boom := errors.New("boom")
	if _, err := h.Subscribe("s", func() error { return boom }); !errors.Is(err, boom) {
		t.Fatalf("Subscribe = %v, want boom", err)
	}
	if n := h.Subscribers("s"); n != 0 {
		t.Fatalf("failed Subscribe registered a subscriber (%d)", n)
	}
	s, _ := h.Subscribe("s", func() error { return nil })
	defer s.Close()
	var j journal
	if err := h.Commit("s", func() ([]protocol.Event, error) { return nil, boom }); !errors.Is(err, boom) {
		t.Fatalf("Commit = %v, want boom", err)
	}
	_ = h.Commit("s", func() ([]protocol.Event, error) { return j.append("ok"), nil })
	evs, err := s.Next(ctx)
	if err != nil || len(evs) != 1 || evs[0].Type != "ok" {
		t.Fatalf("Next = %v, %v; want only the successful commit", evs, err)
	}
}

// Session state is dropped once nobody references it, and concurrent users
// of one session always share one state.
func TestSessionStateDropped(t *testing.T) {
	t.Parallel()
	h := NewHub(Options{})
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id := fmt.Sprintf("s%d", i%5)
			s, _ := h.Subscribe(id, func() error { return nil })
			h.Publish(id, protocol.Event{Type: "x"})
			_ = h.Commit(id, func() ([]protocol.Event, error) { return nil, nil })
			s.Close()
		}()
	}
	wg.Wait()
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.sessions) != 0 {
		t.Fatalf("%d session states left, want 0", len(h.sessions))
	}
}

// A panicking fn or snapshot releases the session lock and its reference.
func TestPanicReleasesSession(t *testing.T) {
	t.Parallel()
	h := NewHub(Options{})
	mustPanic := func(f func()) {
		defer func() {
			if recover() == nil {
				t.Fatal("no panic")
			}
		}()
		f()
	}
	mustPanic(func() { _, _ = h.Subscribe("s", func() error { panic("snapshot") }) })
	mustPanic(func() { _ = h.Commit("s", func() ([]protocol.Event, error) { panic("fn") }) })
	if err := h.Commit("s", func() ([]protocol.Event, error) { return nil, nil }); err != nil {
		t.Fatal(err) // would deadlock if the lock had leaked
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.sessions) != 0 {
		t.Fatalf("%d session states left after panics, want 0", len(h.sessions))
	}
}
