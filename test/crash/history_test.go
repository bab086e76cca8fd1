package crash

import (
	"sort"

	gt "github.com/hermes-gateway/hermes/internal/gatewaytest"
	"github.com/hermes-gateway/hermes/internal/protocol"
)

// Jepsen-style op states of a prompt.submit.
const (
	opInvoked = "invoke"
	opOK      = "ok"
	opFail    = "fail" // a domain error: definitely not admitted
	opInfo    = "info" // indeterminate: no reply (the daemon died)
)

// op is one submission in the client history.
type op struct {
	seq       int
	sid       string
	sub       string // submission_id
	text      string
	state     string
	admission string // the acked (or retried) admission id
}

// history is the client history of submissions, keyed by submission_id.
type history map[string]*op

func (h history) invoke(sid, sub, text string) {
	if _, ok := h[sub]; !ok {
		h[sub] = &op{seq: len(h), sid: sid, sub: sub, text: text, state: opInvoked}
	}
}

func (h history) complete(sub string, rc protocol.Receipt, err error) {
	o := h[sub]
	switch {
	case err == nil:
		o.state, o.admission = opOK, rc.AdmissionID
	case gt.Reason(err) != "" && o.state != opOK:
		o.state = opFail
	case o.state != opOK:
		o.state = opInfo
	}
}

// retried records the receipt a retry of an info op returned.
func (h history) retried(sub string, rc protocol.Receipt) {
	h[sub].state, h[sub].admission = opOK, rc.AdmissionID
}

// ops lists the history in invocation order.
func (h history) ops() []*op {
	out := make([]*op, 0, len(h))
	for _, o := range h {
		out = append(out, o)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].seq < out[j].seq })
	return out
}
