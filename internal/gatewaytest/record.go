package gatewaytest

import (
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/hermes-gateway/hermes/internal/client"
	"github.com/hermes-gateway/hermes/internal/protocol"
)

// Recorder drains a client's Events into a list tests can wait on. It
// embeds the client, so a Recorder is used as the viewer itself.
type Recorder struct {
	*client.Client

	mu      sync.Mutex
	evs     []protocol.Event // guarded by mu: every event received, in order
	changed chan struct{}    // guarded by mu: closed and replaced on append
	ended   bool             // guarded by mu: the event stream ended
}

// Record starts draining c.Events; it runs until the connection ends.
func Record(c *client.Client) *Recorder {
	r := &Recorder{Client: c, changed: make(chan struct{})}
	go r.run()
	return r
}

func (r *Recorder) run() {
	for ev := range r.Client.Events() {
		r.mu.Lock()
		r.evs = append(r.evs, ev)
		close(r.changed)
		r.changed = make(chan struct{})
		r.mu.Unlock()
	}
	r.mu.Lock()
	r.ended = true
	close(r.changed)
	r.changed = make(chan struct{})
	r.mu.Unlock()
}

// Events returns a copy of the events received so far.
func (r *Recorder) Events() []protocol.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]protocol.Event(nil), r.evs...)
}

// Count is the number of events received so far that match.
func (r *Recorder) Count(match func(protocol.Event) bool) int {
	n := 0
	for _, ev := range r.Events() {
		if match(ev) {
			n++
		}
	}
	return n
}

// Await waits up to timeout for a received event that matches (earlier
// events included) and returns the first one.
func (r *Recorder) Await(t testing.TB, timeout time.Duration, match func(protocol.Event) bool) protocol.Event {
	t.Helper()
	return r.AwaitN(t, timeout, 1, match)
}

// AwaitN waits up to timeout until n received events match and returns
// the nth; it fails t on timeout or when the connection ends first.
func (r *Recorder) AwaitN(t testing.TB, timeout time.Duration, n int, match func(protocol.Event) bool) protocol.Event {
	t.Helper()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		r.mu.Lock()
		evs, ch, ended := r.evs, r.changed, r.ended
		r.mu.Unlock()
		seen := 0
		for _, ev := range evs {
			if match(ev) {
				if seen++; seen == n {
					return ev
				}
			}
		}
		if ended {
			t.Fatalf("gatewaytest: connection ended with %d of %d matching events (err %v)", seen, n, r.Client.Err())
		}
		select {
		case <-ch:
		case <-deadline.C:
			t.Fatalf("gatewaytest: %d of %d matching events within %v; got %s", seen, n, timeout, Types(evs))
		}
	}
}

// Types lists event types (with seq) for failure messages.
func Types(evs []protocol.Event) string {
	b, _ := json.Marshal(typeList(evs))
	return string(b)
}

func typeList(evs []protocol.Event) []string {
	out := make([]string, 0, len(evs))
	for _, ev := range evs {
		out = append(out, ev.Type)
	}
	return out
}

// Completed matches message.complete of admission id.
func Completed(admissionID string) func(protocol.Event) bool {
	return func(ev protocol.Event) bool {
		if ev.Type != protocol.EventMessageComplete {
			return false
		}
		var p protocol.MessageCompletePayload
		return json.Unmarshal(ev.Payload, &p) == nil && p.AdmissionID == admissionID
	}
}

// Payload decodes an event payload into T, failing t on error.
func Payload[T any](t testing.TB, ev protocol.Event) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(ev.Payload, &v); err != nil {
		t.Fatalf("gatewaytest: %s payload: %v", ev.Type, err)
	}
	return v
}
