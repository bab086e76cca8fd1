package events

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"

	"github.com/hermes-gateway/hermes/internal/protocol"
)

// ErrCutOff is returned by Next after a subscription fell behind and was
// ended with a session.replay_gap event (which Next returned just before).
// The viewer missed events: it should catch up with session.events.since
// from the last seq it saw, or take a new snapshot with session.resume.
var ErrCutOff = errors.New("events: subscription cut off: viewer fell behind")

// Subscription is one viewer's stream of a session's events. Next must be
// called from one goroutine at a time; Close may be called from any
// goroutine, any number of times.
type Subscription struct {
	id    string        // immutable
	hub   *Hub          // immutable
	st    *session      // immutable; membership in st.subs is guarded by st.mu
	ready chan struct{} // one slot: signalled when the queue becomes non-empty or cut off
	done  chan struct{} // closed by Close

	mu     sync.Mutex
	queue  []entry // guarded by mu
	bytes  int64   // guarded by mu: queueBytes of queue, coalesced text included
	ended  bool    // guarded by mu: cut off; queue holds at most the gap event
	closed bool    // guarded by mu
}

// entry is one queued event. delta marks a decodable delta that later deltas
// of the same stream may merge into; text is non-nil once one did, and the
// payload is rebuilt from it when the entry is taken.
type entry struct {
	ev    protocol.Event
	delta bool
	text  []byte
}

func newSubscription(h *Hub, st *session, id string) *Subscription {
	return &Subscription{
		id:    id,
		hub:   h,
		st:    st,
		ready: make(chan struct{}, 1),
		done:  make(chan struct{}),
	}
}

// ID is the subscription's random id (the snapshot's subscription_id).
func (s *Subscription) ID() string { return s.id }

// Next blocks until events are queued and returns all of them, in order.
// After Close it returns io.EOF; after a cut-off it returns the final
// session.replay_gap event, then ErrCutOff; if ctx ends first it returns
// ctx.Err() and the queue is kept.
func (s *Subscription) Next(ctx context.Context) ([]protocol.Event, error) {
	for {
		if evs, ok, err := s.take(); ok {
			return evs, err
		}
		select {
		case <-s.ready:
		case <-s.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// take returns the queued batch or the terminal error; ok is false when the
// caller must wait.
func (s *Subscription) take() (evs []protocol.Event, ok bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.closed:
		return nil, true, io.EOF
	case len(s.queue) > 0:
		evs = make([]protocol.Event, len(s.queue))
		for i, e := range s.queue {
			evs[i] = e.event()
		}
		s.queue, s.bytes = nil, 0
		return evs, true, nil
	case s.ended:
		return nil, true, ErrCutOff
	}
	return nil, false, nil
}

// Close ends the subscription: it leaves the session, drops its queue and
// makes any Next return io.EOF.
func (s *Subscription) Close() {
	s.hub.remove(s.st, s)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	s.closed = true
	s.queue, s.bytes = nil, 0
	close(s.done)
}

// entryOverhead is what one queued item costs besides its payload (the
// event's header fields and the slice slot), so a flood of empty events is
// bounded in bytes too.
const entryOverhead = 256

// enqueue appends ev (coalescing it into the previous entry when both are
// deltas of the same stream) and reports false when the queue would exceed
// lim (items, or bytes counting coalesced text), in which case the caller
// cuts the subscription off. text and isDelta come from deltaText. Called
// under the session lock.
func (s *Subscription) enqueue(ev protocol.Event, text string, isDelta bool, lim limits) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.ended {
		return true
	}
	if n := len(s.queue); isDelta && n > 0 && s.queue[n-1].delta && sameStream(s.queue[n-1].ev, ev) {
		if s.bytes+int64(len(text)) > lim.bytes {
			return false
		}
		s.queue[n-1].appendText(text)
		s.bytes += int64(len(text))
		return true
	}
	size := int64(len(ev.Payload)) + entryOverhead
	if len(s.queue) >= lim.items || (len(s.queue) > 0 && s.bytes+size > lim.bytes) {
		return false
	}
	s.bytes += size
	s.queue = append(s.queue, entry{ev: ev, delta: isDelta})
	if len(s.queue) == 1 {
		s.signal()
	}
	return true
}

// cutOff replaces the queue by the gap event and ends the subscription.
func (s *Subscription) cutOff(gap protocol.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	s.queue, s.bytes = []entry{{ev: gap}}, 0
	s.ended = true
	s.signal()
}

func (s *Subscription) signal() {
	select {
	case s.ready <- struct{}{}:
	default:
	}
}

// sameStream reports whether delta b may be merged into queued event a.
func sameStream(a, b protocol.Event) bool {
	return a.Type == b.Type && a.SessionID == b.SessionID &&
		a.AdmissionID == b.AdmissionID && a.ExecutionGeneration == b.ExecutionGeneration &&
		a.AuthorityEpoch == b.AuthorityEpoch && a.ReplayEpoch == b.ReplayEpoch &&
		a.Seq == b.Seq
}

// appendText merges a delta's text into e. The first merge copies e's own
// text out of its payload (which decoded when it was queued, since only
// decodable deltas are merged into).
func (e *entry) appendText(text string) {
	if e.text == nil {
		var p protocol.DeltaPayload
		_ = json.Unmarshal(e.ev.Payload, &p)
		e.text = append(make([]byte, 0, 2*(len(p.Text)+len(text))), p.Text...)
	}
	e.text = append(e.text, text...)
}

// event returns the queued event, rebuilding a merged delta's payload.
func (e entry) event() protocol.Event {
	if e.text == nil {
		return e.ev
	}
	ev := e.ev
	ev.Payload, _ = json.Marshal(protocol.DeltaPayload{Text: string(e.text)})
	return ev
}
