package queue

import (
	"errors"
	"fmt"
)

// Status is the persisted state of one admission (session_admissions.status).
type Status string

// The admission statuses. See the package doc for each one's crash semantics.
const (
	Queued   Status = "queued"
	Started  Status = "started"
	Unknown  Status = "unknown"
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

// ErrInvalidTransition is returned by Next and CheckOutcome for a move the
// table does not allow. Callers map it to the row-specific error of their
// operation (the store: stale generation or unknown execution).
var ErrInvalidTransition = errors.New("invalid admission transition")

// Transition is one row of the table: Event moves a row From → To, and if
// To is Terminal the outcome must be one of Outcomes.
type Transition struct {
	Event    Event
	From, To Status
	Outcomes []Outcome
}

// Transitions is the whole state machine. From "" means "no row yet".
var Transitions = []Transition{
	{Event: Admit, From: "", To: Queued},
	{Event: Claim, From: Queued, To: Started},
	{Event: Settle, From: Started, To: Terminal, Outcomes: []Outcome{Completed, Failed, Rejected, Interrupted}},
	{Event: Cancel, From: Queued, To: Terminal, Outcomes: []Outcome{Cancelled}},
	{Event: Orphan, From: Started, To: Unknown},
	{Event: Resolve, From: Unknown, To: Terminal, Outcomes: []Outcome{Interrupted}},
}

// Next returns the status that ev moves a row in status from to.
func Next(from Status, ev Event) (Status, error) {
	if t, ok := find(from, ev); ok {
		return t.To, nil
	}
	return "", fmt.Errorf("%w: %s from %q", ErrInvalidTransition, ev, from)
}

// CheckOutcome reports whether ev may end a row in status from with outcome o.
func CheckOutcome(from Status, ev Event, o Outcome) error {
	t, ok := find(from, ev)
	if !ok {
		return fmt.Errorf("%w: %s from %q", ErrInvalidTransition, ev, from)
	}
	for _, allowed := range t.Outcomes {
		if allowed == o {
			return nil
		}
	}
	return fmt.Errorf("%w: %s cannot end with outcome %q", ErrInvalidTransition, ev, o)
}

func find(from Status, ev Event) (Transition, bool) {
	for _, t := range Transitions {
		if t.From == from && t.Event == ev {
			return t, true
		}
	}
	return Transition{}, false
}
