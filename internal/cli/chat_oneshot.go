package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hermes-gateway/hermes/internal/client"
	"github.com/hermes-gateway/hermes/internal/ids"
	"github.com/hermes-gateway/hermes/internal/protocol"
	"github.com/hermes-gateway/hermes/internal/rpc"
)

// outcomeUnknown is how the one-shot reports an admission the gateway
// marked unknown (it stopped during the turn).
const outcomeUnknown = "unknown"

// reconnectWindow is how long a one-shot waits for the gateway to come back
// after its connection dropped. It never starts a daemon itself then: a
// stopped gateway stays stopped unless someone starts it again.
const reconnectWindow = 30 * time.Second

// oneshot follows one admission of a session to its end, printing its text.
// It is used by one goroutine (runOneshot's).
type oneshot struct {
	e   *env
	o   chatOptions
	ask asker
	c   *client.Client // current connection; replaced by reconnect

	sid         string
	admission   string
	lastSeq     int64  // highest journaled seq handled; older events are duplicates
	replayEpoch string // of lastSeq
	cur         string // text of the current assistant message shown so far
	gap         bool   // deltas of the current message were lost: show the rest at its end
	shown       bool   // something was written to stdout
	lastNL      bool   // the last byte written to stdout was '\n'
	escape      bool   // stdout is a terminal: the answer is shown protocol.VisibleText
	settled     map[string]bool
	done        *protocol.MessageCompletePayload
}

// runOneshot is `hermes chat -q/-z TEXT`: create a session (source oneshot),
// submit TEXT, stream the answer, exit by its outcome.
func runOneshot(ctx context.Context, e *env, o chatOptions) error {
	text, err := o.promptText(e.io.In)
	if err != nil {
		return err
	}
	params, err := o.createParams("oneshot")
	if err != nil {
		return err
	}
	c, err := connect(ctx, e.home, !o.noAutostart)
	if err != nil {
		return err
	}
	r := &oneshot{e: e, o: o, c: c, ask: newAsker(e), escape: isTerminal(e.io.Out), settled: map[string]bool{}}
	defer func() { _ = r.c.Close() }()
	if err := r.start(ctx, params, text); err != nil {
		return err
	}
	if err := r.follow(ctx); err != nil {
		return err
	}
	return r.finish()
}

// start creates the session and submits the prompt. Events of the admission
// wait in the client's buffer until follow reads them, so the order between
// the submit reply and the admission's first events does not matter.
func (r *oneshot) start(ctx context.Context, params protocol.SessionCreateParams, text string) error {
	snap, err := r.c.CreateSession(ctx, params)
	if err != nil {
		return callFailure("session.create", err)
	}
	r.sid, r.lastSeq, r.replayEpoch = snap.SessionID, snap.LastSequence, snap.ReplayEpoch
	subID := r.o.submissionID
	if subID == "" {
		subID = ids.New("oneshot-", 16)
	}
	rec, err := r.c.Submit(ctx, protocol.PromptSubmitParams{SessionID: r.sid, SubmissionID: &subID, Text: text})
	if err != nil {
		return callFailure("prompt.submit", err)
	}
	r.admission = rec.AdmissionID
	if rec.Status == protocol.StatusQueued {
		return nil
	}
	// An earlier run admitted this submission: its events may predate the
	// attach. Replay the journal from the start; deltas are gone, so the
	// answer is shown whole at message.complete.
	r.lastSeq, r.gap = 0, true
	return r.catchUpOrFail(ctx)
}

// follow handles events until the admission ends.
func (r *oneshot) follow(ctx context.Context) error {
	for r.done == nil {
		select {
		case ev, ok := <-r.c.Events():
			if !ok {
				if err := r.reconnect(ctx); err != nil {
					return err
				}
				continue
			}
			if err := r.handle(ctx, ev); err != nil {
				return err
			}
		case <-ctx.Done():
			return failf(exitRuntime, "stopped waiting; the turn goes on in session %s (`hermes chat --resume %s`)", r.sid, r.sid)
		}
	}
	return nil
}

// handle applies one event; journaled events at or below lastSeq are
// duplicates (live and replayed copies overlap after a resume).
func (r *oneshot) handle(ctx context.Context, ev protocol.Event) error {
	if ev.SessionID != r.sid {
		return nil
	}
	if ev.Seq > 0 {
		if ev.Seq <= r.lastSeq {
			return nil
		}
		r.lastSeq = ev.Seq
	}
	switch ev.Type {
	case protocol.EventReplayGap:
		return r.resubscribeOrFail(ctx)
	case protocol.EventSessionUnknown:
		var p protocol.SessionUnknownPayload
		if decode(ev.Payload, &p) && (p.AdmissionID == r.admission || ev.AdmissionID == r.admission) {
			r.done = &protocol.MessageCompletePayload{AdmissionID: r.admission, Outcome: outcomeUnknown}
		}
		return nil
	}
	if ev.AdmissionID != r.admission {
		return nil
	}
	return r.handleOwn(ctx, ev)
}

// handleOwn applies an event of the followed admission.
func (r *oneshot) handleOwn(ctx context.Context, ev protocol.Event) error {
	switch ev.Type {
	case protocol.EventMessageDelta:
		var p protocol.DeltaPayload
		if decode(ev.Payload, &p) {
			r.delta(p.Text)
		}
	case protocol.EventToolStart:
		var p protocol.ToolStartPayload
		r.boundary()
		if decode(ev.Payload, &p) && !r.o.finalOnly {
			fmt.Fprintf(r.e.io.Err, "· %s %s\n", protocol.Visible(p.Name), protocol.Visible(toolSummary(p.Name, p.Args)))
		}
	case protocol.EventToolComplete:
		r.boundary()
	case protocol.EventApprovalSettled, protocol.EventClarifySettled:
		r.markSettled(ev)
	case protocol.EventApprovalRequest:
		var p protocol.ApprovalRequestPayload
		if decode(ev.Payload, &p) {
			return r.approval(ctx, p)
		}
	case protocol.EventClarifyRequest:
		var p protocol.ClarifyRequestPayload
		if decode(ev.Payload, &p) {
			return r.clarify(ctx, p)
		}
	case protocol.EventMessageComplete:
		var p protocol.MessageCompletePayload
		if decode(ev.Payload, &p) {
			r.complete(p)
		}
	}
	return nil
}

func decode(raw json.RawMessage, v any) bool { return json.Unmarshal(raw, v) == nil }

// finish maps the outcome to the exit code (docs/protocol.md#exit-codes).
func (r *oneshot) finish() error {
	switch out := r.done.Outcome; out {
	case protocol.OutcomeCompleted:
		return nil
	case outcomeUnknown:
		return failf(exitTurnFailed, "the gateway stopped during the turn; admission %s is unknown: "+
			"inspect it with `hermes chat --resume %s`, settle it with `hermes sessions resolve %s %s`",
			r.admission, r.sid, r.sid, r.admission)
	default:
		msg := "the turn ended " + out
		if r.done.Error != "" {
			msg += ": " + protocol.Visible(r.done.Error) + modelHint(r.done.Error)
		}
		return failf(exitTurnFailed, "%s", msg)
	}
}

// modelHint tells a newcomer what to do when the model endpoint is not
// there or refuses the key.
func modelHint(err string) string {
	switch {
	case strings.Contains(err, "connection refused") || strings.Contains(err, "no such host") ||
		strings.Contains(err, "host name not resolved"):
		return "\n(no model endpoint answers there: set model.base_url in config.yaml of the gateway home; see the README, section Point it at a model)"
	case strings.Contains(err, "401") || strings.Contains(err, "403"):
		return "\n(the model endpoint refused the key: put it in .env of the gateway home under model.api_key_env, e.g. OPENAI_API_KEY=…)"
	}
	return ""
}

// reconnect replaces a dropped connection, resumes the session and replays
// the journal since lastSeq.
func (r *oneshot) reconnect(ctx context.Context) error {
	_ = r.c.Close()
	fmt.Fprintln(r.e.io.Err, "hermes: lost the gateway connection; reconnecting…")
	deadline := time.Now().Add(reconnectWindow)
	for {
		c, err := connect(ctx, r.e.home, false)
		if err == nil {
			r.c = c
			err = r.resubscribe(ctx)
			if err == nil || !errors.Is(err, rpc.ErrClosed) {
				return wrapCall("session.resume", err)
			}
			_ = c.Close()
		}
		if time.Now().After(deadline) {
			return failf(exitUnavailable, "the gateway went away during the turn; it goes on in session %s "+
				"once the gateway is back (`hermes chat --resume %s`)", r.sid, r.sid)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}

func wrapCall(what string, err error) error {
	if err == nil {
		return nil
	}
	var x *exitError
	if errors.As(err, &x) {
		return err
	}
	return callFailure(what, err)
}

// resubscribe attaches again (after a replay gap or a new connection) and
// catches up from the journal.
func (r *oneshot) resubscribe(ctx context.Context) error {
	if _, err := r.c.ResumeSession(ctx, protocol.SessionResumeParams{SessionID: &r.sid}); err != nil {
		return err
	}
	r.gap = true
	return r.catchUp(ctx)
}

func (r *oneshot) resubscribeOrFail(ctx context.Context) error {
	err := r.resubscribe(ctx)
	if errors.Is(err, rpc.ErrClosed) {
		return nil // Events ends next; follow reconnects
	}
	return wrapCall("session.resume", err)
}

func (r *oneshot) catchUpOrFail(ctx context.Context) error {
	return wrapCall("session.events.since", r.catchUp(ctx))
}

// catchUp handles the journaled events after lastSeq. Prompts settled later
// in the same batch are marked first so none is asked for nothing.
func (r *oneshot) catchUp(ctx context.Context) error {
	restarted := false
	for r.done == nil {
		seq, epoch := r.lastSeq, r.replayEpoch
		p := protocol.EventsSinceParams{SessionID: r.sid, LastSequence: &seq}
		if epoch != "" {
			p.ReplayEpoch = &epoch
		}
		res, err := r.c.EventsSince(ctx, p)
		if err != nil {
			return err
		}
		if res.SnapshotRequired && !restarted {
			// The journal was pruned: replay what is left from the start.
			restarted, r.lastSeq, r.replayEpoch = true, 0, res.ReplayEpoch
			continue
		}
		r.replayEpoch = res.ReplayEpoch
		for _, ev := range res.Events {
			r.markSettled(ev)
		}
		for _, ev := range res.Events {
			if err := r.handle(ctx, ev); err != nil {
				return err
			}
		}
		if !res.More {
			break
		}
	}
	return nil
}

// markSettled records the prompt a settled event closes; other events are
// ignored.
func (r *oneshot) markSettled(ev protocol.Event) {
	if ev.Type != protocol.EventApprovalSettled && ev.Type != protocol.EventClarifySettled {
		return
	}
	var p struct {
		PromptID string `json:"prompt_id"`
	}
	if decode(ev.Payload, &p) {
		r.settled[p.PromptID] = true
	}
}

// toolSummary is a one-line view of a tool call's arguments.
func toolSummary(name string, args json.RawMessage) string {
	var m map[string]any
	if json.Unmarshal(args, &m) == nil {
		if cmd, ok := m["command"].(string); ok && name == "terminal" {
			return oneLine(cmd, 100)
		}
		if p, ok := m["path"].(string); ok {
			return p
		}
	}
	return oneLine(string(args), 100)
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		s = string(r[:n]) + "…" // cut between characters, never inside one
	}
	return s
}
