package queue

import (
	"errors"
	"fmt"
	"slices"
)

// Status is the persisted state of one admission (session_admissions.status,
// a CHECKed enum). Each constant states what the row means and what happens
// to it when the daemon dies in that state; recovery relies on both.
type Status string

// The admission statuses.
const (
	// Queued: the submission committed and was acknowledged; nothing ran.
	// Crash: kept. After the restart it runs exactly once, in FIFO (seq)
	// order, once the daemon is ready.
	Queued Status = "queued"
	// Started: a claim committed in epoch E with a fresh execution
	// generation; the turn may have had side effects (tool calls, files).
	// Crash: the next epoch moves it to Unknown (Orphan), because nobody can
	// tell how far it got. It is never replayed.
	Started Status = "started"
	// Unknown: a Started row whose epoch died. Crash: kept. It is never
	// replayed automatically and blocks every later admission of its
	// session until an operator resolves it (Resolve → Terminal/Interrupted).
	Unknown Status = "unknown"
	// Terminal: final, with exactly one Outcome. Crash: kept. A retry of the
	// same submission returns this row's receipt; nothing moves it again.
	Terminal Status = "terminal"
)

// Pending reports whether the status still belongs to the session's FIFO
// (everything but Terminal).
func (s Status) Pending() bool { return s == Queued || s == Started || s == Unknown }

// Valid reports whether s is one of the four statuses.
func (s Status) Valid() bool { return s.Pending() || s == Terminal }

// Outcome is how a Terminal admission ended (session_admissions.outcome).
type Outcome string

// The terminal outcomes.
const (
	Completed   Outcome = "completed"
	Failed      Outcome = "failed"
	Rejected    Outcome = "rejected"
	Interrupted Outcome = "interrupted"
	Cancelled   Outcome = "cancelled"
)

// Valid reports whether o is one of the five outcomes.
func (o Outcome) Valid() bool {
	switch o {
	case Completed, Failed, Rejected, Interrupted, Cancelled:
		return true
	}
	return false
}

// Event names a move of an admission.
type Event string

// The events of the transition table.
const (
	Admit   Event = "admit"   // a submission is committed
	Claim   Event = "claim"   // the session's executor takes the oldest queued row
	Settle  Event = "settle"  // the running turn ended
	Cancel  Event = "cancel"  // a client withdrew a queued row
	Orphan  Event = "orphan"  // a new epoch began while the row was started
	Resolve Event = "resolve" // an operator closed an unknown row
)

// ErrInvalidTransition is returned by Next and CheckOutcome (and by
// Transition.CheckOutcome) for a move the table does not allow. The store
// reports a refused status as its own sentinel (stale generation or unknown
// execution) and a refused outcome, a programming error, as this one.
var ErrInvalidTransition = errors.New("invalid admission transition")

// Transition is one row of the table: Event moves a row From → To, and if
// To is Terminal the outcome must be one of Outcomes (a move to any other
// status has no outcome).
type Transition struct {
	Event    Event
	From, To Status
	Outcomes []Outcome
}

// Transitions is the whole state machine, the only place a move is decided.
// From "" means "no row yet". A (From, Event) pair not listed is refused.
var Transitions = []Transition{
	// prompt.submit commits the row (an INSERT, not an UPDATE).
	{Event: Admit, From: "", To: Queued},
	// The session's executor; the store also requires that the session has
	// no Started and no Unknown row, and assigns the execution generation.
	{Event: Claim, From: Queued, To: Started},
	// The turn's own end; an interrupt by the client is Interrupted too.
	{Event: Settle, From: Started, To: Terminal, Outcomes: []Outcome{Completed, Failed, Rejected, Interrupted}},
	// prompt.cancel: only a row that never ran can be withdrawn.
	{Event: Cancel, From: Queued, To: Terminal, Outcomes: []Outcome{Cancelled}},
	// BeginEpoch, for every Started row of an older epoch.
	{Event: Orphan, From: Started, To: Unknown},
	// prompt.resolve_unknown: the operator closes it; it is never replayed.
	{Event: Resolve, From: Unknown, To: Terminal, Outcomes: []Outcome{Interrupted}},
}

// Lookup returns the table row that ev takes from status from, if any.
func Lookup(from Status, ev Event) (Transition, bool) {
	i := slices.IndexFunc(Transitions, func(t Transition) bool { return t.From == from && t.Event == ev })
	if i < 0 {
		return Transition{}, false
	}
	return Transitions[i], true
}

// CheckOutcome reports whether t may end with outcome o: one of Outcomes
// when t ends in Terminal, "" otherwise.
func (t Transition) CheckOutcome(o Outcome) error {
	if len(t.Outcomes) == 0 && o == "" || slices.Contains(t.Outcomes, o) {
		return nil
	}
	return fmt.Errorf("%w: %s to %s cannot end with outcome %q", ErrInvalidTransition, t.Event, t.To, o)
}

// Next returns the status that ev moves a row in status from to.
func Next(from Status, ev Event) (Status, error) {
	if t, ok := Lookup(from, ev); ok {
		return t.To, nil
	}
	return "", fmt.Errorf("%w: %s from %q", ErrInvalidTransition, ev, from)
}

// CheckOutcome reports whether ev may end a row in status from with outcome
// o (a terminal outcome: a move that does not end in Terminal has none).
func CheckOutcome(from Status, ev Event, o Outcome) error {
	t, ok := Lookup(from, ev)
	if !ok {
		return fmt.Errorf("%w: %s from %q", ErrInvalidTransition, ev, from)
	}
	if o == "" {
		return fmt.Errorf("%w: %s cannot end with outcome %q", ErrInvalidTransition, ev, o)
	}
	return t.CheckOutcome(o)
}
