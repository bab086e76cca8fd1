package queue_test

import (
	"errors"
	"testing"

	"github.com/hermes-gateway/hermes/internal/queue"
)

var (
	allStatuses = []queue.Status{"", queue.Queued, queue.Started, queue.Unknown, queue.Terminal}
	allEvents   = []queue.Event{queue.Admit, queue.Claim, queue.Settle, queue.Cancel, queue.Orphan, queue.Resolve}
)

func TestNext(t *testing.T) {
	t.Parallel()
	// The complete table: every (from, event) pair not listed must be refused.
	want := map[queue.Status]map[queue.Event]queue.Status{
		"":           {queue.Admit: queue.Queued},
		queue.Queued: {queue.Claim: queue.Started, queue.Cancel: queue.Terminal},
		queue.Started: {
			queue.Settle: queue.Terminal,
			queue.Orphan: queue.Unknown,
		},
		queue.Unknown:  {queue.Resolve: queue.Terminal},
		queue.Terminal: {},
	}
	for _, from := range allStatuses {
		for _, ev := range allEvents {
			got, err := queue.Next(from, ev)
			to, ok := want[from][ev]
			switch {
			case ok && (err != nil || got != to):
				t.Errorf("Next(%q, %s) = %q, %v; want %q", from, ev, got, err, to)
			case !ok && !errors.Is(err, queue.ErrInvalidTransition):
				t.Errorf("Next(%q, %s) = %q, %v; want ErrInvalidTransition", from, ev, got, err)
			}
		}
	}
}

func TestCheckOutcome(t *testing.T) {
	t.Parallel()
	tests := []struct {
		from queue.Status
		ev   queue.Event
		o    queue.Outcome
		ok   bool
	}{
		{queue.Started, queue.Settle, queue.Completed, true},
		{queue.Started, queue.Settle, queue.Failed, true},
		{queue.Started, queue.Settle, queue.Rejected, true},
		{queue.Started, queue.Settle, queue.Interrupted, true},
		{queue.Started, queue.Settle, queue.Cancelled, false},
		{queue.Started, queue.Settle, "", false},
		{queue.Queued, queue.Settle, queue.Completed, false},
		{queue.Queued, queue.Cancel, queue.Cancelled, true},
		{queue.Queued, queue.Cancel, queue.Completed, false},
		{queue.Started, queue.Cancel, queue.Cancelled, false},
		{queue.Unknown, queue.Resolve, queue.Interrupted, true},
		{queue.Unknown, queue.Resolve, queue.Completed, false},
		{queue.Terminal, queue.Resolve, queue.Interrupted, false},
	}
	for _, tt := range tests {
		err := queue.CheckOutcome(tt.from, tt.ev, tt.o)
		if (err == nil) != tt.ok {
			t.Errorf("CheckOutcome(%q, %s, %q) = %v; want ok=%v", tt.from, tt.ev, tt.o, err, tt.ok)
		}
		if err != nil && !errors.Is(err, queue.ErrInvalidTransition) {
			t.Errorf("CheckOutcome error %v does not wrap ErrInvalidTransition", err)
		}
	}
}

// TestTableInvariants checks the properties the package doc promises.
func TestTableInvariants(t *testing.T) {
	t.Parallel()
	for _, tr := range queue.Transitions {
		if tr.From == queue.Terminal {
			t.Errorf("%s leaves Terminal", tr.Event)
		}
		if (tr.To == queue.Terminal) != (len(tr.Outcomes) > 0) {
			t.Errorf("%s: outcomes %v must be set exactly when it ends in Terminal", tr.Event, tr.Outcomes)
		}
		for _, o := range tr.Outcomes {
			if !o.Valid() {
				t.Errorf("%s: invalid outcome %q", tr.Event, o)
			}
		}
		if tr.From != "" && !tr.From.Valid() || !tr.To.Valid() {
			t.Errorf("%s: invalid status in %q → %q", tr.Event, tr.From, tr.To)
		}
	}
}

func TestStatusPending(t *testing.T) {
	t.Parallel()
	for s, want := range map[queue.Status]bool{
		queue.Queued: true, queue.Started: true, queue.Unknown: true, queue.Terminal: false, "bogus": false,
	} {
		if got := s.Pending(); got != want {
			t.Errorf("%q.Pending() = %v, want %v", s, got, want)
		}
	}
	if queue.Status("bogus").Valid() || queue.Outcome("bogus").Valid() {
		t.Error("bogus values must not be valid")
	}
}

// TestLookupEveryMove is the table test of every (from, event, outcome)
// triple, legal and illegal: exactly the moves listed here exist, each ends
// in its status, and every other triple is refused with ErrInvalidTransition.
func TestLookupEveryMove(t *testing.T) {
	t.Parallel()
	type move struct {
		from queue.Status
		ev   queue.Event
		o    queue.Outcome
	}
	legal := map[move]queue.Status{
		{"", queue.Admit, ""}:                             queue.Queued,
		{queue.Queued, queue.Claim, ""}:                   queue.Started,
		{queue.Queued, queue.Cancel, queue.Cancelled}:     queue.Terminal,
		{queue.Started, queue.Settle, queue.Completed}:    queue.Terminal,
		{queue.Started, queue.Settle, queue.Failed}:       queue.Terminal,
		{queue.Started, queue.Settle, queue.Rejected}:     queue.Terminal,
		{queue.Started, queue.Settle, queue.Interrupted}:  queue.Terminal,
		{queue.Started, queue.Orphan, ""}:                 queue.Unknown,
		{queue.Unknown, queue.Resolve, queue.Interrupted}: queue.Terminal,
	}
	outcomes := []queue.Outcome{"", queue.Completed, queue.Failed, queue.Rejected, queue.Interrupted, queue.Cancelled}
	seen := 0
	for _, from := range allStatuses {
		for _, ev := range allEvents {
			for _, o := range outcomes {
				m := move{from, ev, o}
				to, want := legal[m]
				tr, ok := queue.Lookup(from, ev)
				var err error
				if ok {
					err = tr.CheckOutcome(o)
				}
				switch {
				case want && (!ok || err != nil || tr.To != to):
					t.Errorf("%+v: Lookup = %+v, %v, CheckOutcome = %v; want → %s", m, tr, ok, err, to)
				case !want && ok && !errors.Is(err, queue.ErrInvalidTransition):
					t.Errorf("%+v: allowed (→ %s), want refused", m, tr.To)
				case want:
					seen++
				}
			}
		}
	}
	if seen != len(legal) {
		t.Errorf("%d legal moves found, want %d", seen, len(legal))
	}
}
