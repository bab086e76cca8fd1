package events

import (
	"crypto/rand"
	"encoding/json"
	"sync"
	"sync/atomic"

	"github.com/hermes-gateway/hermes/internal/protocol"
)

// Queue caps when Options leaves them 0.
const (
	DefaultBuffer      = 1024
	DefaultBufferBytes = 4 << 20
)

// Options configure a Hub.
type Options struct {
	// Buffer is the most items a subscription may have queued; one more cuts
	// it off with session.replay_gap. Coalesced deltas count as one item.
	// 0 means DefaultBuffer.
	Buffer int
	// BufferBytes is the most bytes a subscription may have queued
	// (gateway.viewer_buffer_bytes): payloads, coalesced delta text
	// included, plus a fixed overhead per item. Going past it cuts the
	// subscription off exactly like Buffer. A single event larger than the
	// budget is still queued when the queue is empty. 0 means
	// DefaultBufferBytes.
	BufferBytes int64
}

// limits are a subscription's queue caps, immutable after NewHub.
type limits struct {
	items int
	bytes int64
}

// Hub fans out committed session events to subscriptions. The zero value is
// not usable; use NewHub. A Hub owns no goroutines and needs no Close.
type Hub struct {
	limits  limits       // immutable after NewHub
	cutOffs atomic.Int64 // viewers cut off so far (CutOffs)

	mu       sync.Mutex
	sessions map[string]*session // guarded by mu; entries live while refs > 0
}

// session is the hub's state for one session ID.
type session struct {
	id   string
	refs int // guarded by Hub.mu: callers in flight + registered subscriptions

	mu          sync.Mutex             // serializes commit/publish/subscribe
	subs        map[*Subscription]bool // guarded by mu
	latestSeq   int64                  // guarded by mu: highest seq published
	replayEpoch string                 // guarded by mu: from the latest event that had one
}

// NewHub returns an empty hub.
func NewHub(opts Options) *Hub {
	if opts.Buffer <= 0 {
		opts.Buffer = DefaultBuffer
	}
	if opts.BufferBytes <= 0 {
		opts.BufferBytes = DefaultBufferBytes
	}
	return &Hub{limits: limits{items: opts.Buffer, bytes: opts.BufferBytes}, sessions: make(map[string]*session)}
}

// Commit runs fn under sessionID's lock and, if fn succeeds, publishes the
// events it returned, in order, to every subscriber of the session before
// releasing the lock. fn is where the caller commits the transaction that
// journaled those events, so live order equals journal order and a snapshot
// taken in Subscribe is exact. If fn fails nothing is published and its
// error is returned unchanged. fn must not call back into the hub for the
// same session (it would deadlock).
func (h *Hub) Commit(sessionID string, fn func() ([]protocol.Event, error)) error {
	st := h.acquire(sessionID)
	defer h.release(st)
	st.mu.Lock()
	defer st.mu.Unlock()
	evs, err := fn()
	if err != nil {
		return err
	}
	h.publishLocked(st, evs)
	return nil
}

// Publish delivers events that need no transaction of their own — deltas,
// or events already committed — to every subscriber of the session, in
// order, under the session's lock.
func (h *Hub) Publish(sessionID string, evs ...protocol.Event) {
	if len(evs) == 0 {
		return
	}
	st := h.acquire(sessionID)
	defer h.release(st)
	st.mu.Lock()
	defer st.mu.Unlock()
	h.publishLocked(st, evs)
}

// Subscribe runs snapshot under sessionID's lock (the caller reads its
// snapshot there) and registers the new subscription before releasing it,
// so no event is missed or duplicated between the snapshot and the stream.
// If snapshot fails, nothing is registered and its error is returned.
// The caller must Close the subscription.
func (h *Hub) Subscribe(sessionID string, snapshot func() error) (*Subscription, error) {
	st := h.acquire(sessionID)
	registered := false
	defer func() {
		if !registered { // snapshot failed or panicked
			h.release(st)
		}
	}()
	st.mu.Lock()
	defer st.mu.Unlock()
	if err := snapshot(); err != nil {
		return nil, err
	}
	s := newSubscription(h, st, rand.Text())
	st.subs[s] = true // takes over the reference acquired above
	registered = true
	return s, nil
}

// Subscribers reports how many live subscriptions the session has.
func (h *Hub) Subscribers(sessionID string) int {
	h.mu.Lock()
	st := h.sessions[sessionID]
	if st == nil {
		h.mu.Unlock()
		return 0
	}
	st.refs++
	h.mu.Unlock()
	defer h.release(st)
	st.mu.Lock()
	defer st.mu.Unlock()
	return len(st.subs)
}

// acquire returns sessionID's state with one more reference, creating it if
// needed. The reference keeps the state in the map until release.
func (h *Hub) acquire(sessionID string) *session {
	h.mu.Lock()
	defer h.mu.Unlock()
	st := h.sessions[sessionID]
	if st == nil {
		st = &session{id: sessionID, subs: make(map[*Subscription]bool)}
		h.sessions[sessionID] = st
	}
	st.refs++
	return st
}

// release drops one reference and deletes the state when none is left.
func (h *Hub) release(st *session) {
	h.mu.Lock()
	defer h.mu.Unlock()
	st.refs--
	if st.refs == 0 {
		delete(h.sessions, st.id)
	}
}

// publishLocked records the batch's seq and epoch, then delivers each event
// to each subscriber, cutting off those whose queue overflows. The batch is
// recorded first so a gap caused by it names its latest seq.
func (h *Hub) publishLocked(st *session, evs []protocol.Event) {
	for _, ev := range evs {
		if ev.Seq > st.latestSeq {
			st.latestSeq = ev.Seq
		}
		if ev.ReplayEpoch != "" {
			st.replayEpoch = ev.ReplayEpoch
		}
	}
	for _, ev := range evs {
		text, isDelta := deltaText(ev)
		for s := range st.subs {
			if !s.enqueue(ev, text, isDelta, h.limits) {
				h.cutOffLocked(st, s)
			}
		}
	}
}

// cutOffLocked ends s with a replay_gap and removes it from st.
func (h *Hub) cutOffLocked(st *session, s *Subscription) {
	payload, _ := json.Marshal(protocol.ReplayGapPayload{
		ReplayEpoch: st.replayEpoch,
		LatestSeq:   st.latestSeq,
	})
	s.cutOff(protocol.Event{
		Type:        protocol.EventReplayGap,
		SessionID:   st.id,
		ReplayEpoch: st.replayEpoch,
		Payload:     payload,
	})
	delete(st.subs, s)
	h.release(st)
	h.cutOffs.Add(1)
}

// remove unregisters s from st if it is still registered (Close).
func (h *Hub) remove(st *session, s *Subscription) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.subs[s] {
		delete(st.subs, s)
		h.release(st)
	}
}

// deltaText decodes a delta's text once per publish, not per subscriber.
// ok is false for non-deltas and for deltas whose payload does not decode;
// those are queued as they are and never coalesced.
func deltaText(ev protocol.Event) (text string, ok bool) {
	if !protocol.IsDelta(ev.Type) {
		return "", false
	}
	var p protocol.DeltaPayload
	if err := json.Unmarshal(ev.Payload, &p); err != nil {
		return "", false
	}
	return p.Text, true
}
