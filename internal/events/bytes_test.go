package events

import (
	"errors"
	"strings"
	"testing"

	"github.com/hermes-gateway/hermes/internal/protocol"
)

// Coalesced deltas stay one item but their text counts against
// BufferBytes: a viewer that stopped reading is cut off with a replay_gap
// instead of holding the whole stream, while a reading viewer keeps up.
func TestCoalescedDeltasCountAgainstByteBudget(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	const budget = 64 << 10
	h := NewHub(Options{Buffer: 1024, BufferBytes: budget})
	stalled, _ := h.Subscribe("s", func() error { return nil })
	defer stalled.Close()
	reader, _ := h.Subscribe("s", func() error { return nil })
	defer reader.Close()
	chunk := strings.Repeat("x", 1024)
	var read int
	for range 2 * budget / len(chunk) {
		h.Publish("s", delta(protocol.EventMessageDelta, chunk))
		evs, err := reader.Next(ctx)
		if err != nil {
			t.Fatalf("reading viewer: %v", err)
		}
		read += len(evs)
	}
	if want := 2 * budget / len(chunk); read != want {
		t.Fatalf("reading viewer got %d events, want %d", read, want)
	}
	evs, err := stalled.Next(ctx)
	if err != nil || len(evs) != 1 || evs[0].Type != protocol.EventReplayGap {
		t.Fatalf("stalled viewer = %+v, %v; want one replay_gap", evs, err)
	}
	if _, err := stalled.Next(ctx); !errors.Is(err, ErrCutOff) {
		t.Fatalf("Next after gap = %v, want ErrCutOff", err)
	}
	if n := h.Subscribers("s"); n != 1 {
		t.Fatalf("Subscribers = %d, want 1", n)
	}
}

// Distinct events are bounded in bytes as well as in items; taking the
// queue frees its budget.
func TestByteBudgetDistinctEventsAndRelease(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	h := NewHub(Options{Buffer: 1 << 20, BufferBytes: 10 * (entryOverhead + 2)})
	s, _ := h.Subscribe("s", func() error { return nil })
	defer s.Close()
	var j journal
	for range 3 {
		for range 10 { // exactly the budget: {} is 2 bytes
			_ = h.Commit("s", func() ([]protocol.Event, error) { return j.append("x"), nil })
		}
		evs, err := s.Next(ctx)
		if err != nil || len(evs) != 10 {
			t.Fatalf("Next = %d events, %v; want 10", len(evs), err)
		}
	}
	for range 11 {
		_ = h.Commit("s", func() ([]protocol.Event, error) { return j.append("x"), nil })
	}
	evs, err := s.Next(ctx)
	if err != nil || len(evs) != 1 || evs[0].Type != protocol.EventReplayGap {
		t.Fatalf("over budget: %+v, %v; want one replay_gap", evs, err)
	}
}

// One event larger than the budget still reaches a viewer with nothing
// queued (the budget bounds a backlog, not an event).
func TestOversizeEventIntoEmptyQueue(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	h := NewHub(Options{BufferBytes: 1024})
	s, _ := h.Subscribe("s", func() error { return nil })
	defer s.Close()
	h.Publish("s", delta(protocol.EventMessageDelta, strings.Repeat("y", 4096)))
	evs, err := s.Next(ctx)
	if err != nil || len(evs) != 1 || evs[0].Type != protocol.EventMessageDelta {
		t.Fatalf("Next = %+v, %v; want the delta", evs, err)
	}
}
