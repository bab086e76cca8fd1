package tui

import (
	"context"
	"encoding/json"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/hermes-gateway/hermes/internal/client"
	"github.com/hermes-gateway/hermes/internal/ids"
	"github.com/hermes-gateway/hermes/internal/protocol"
)

// callTimeout bounds one gateway call made by a command.
const callTimeout = 15 * time.Second

// retryDelay is the pause between reconnect attempts.
const retryDelay = 500 * time.Millisecond

// Messages that commands send back to Update. gen is the connection
// generation the command ran on.
type (
	connectedMsg struct {
		gen int
		c   *client.Client
	}
	dialFailedMsg struct {
		gen int
		err error
	}
	attachedMsg struct {
		gen  int
		snap protocol.Snapshot
		err  error
	}
	eventMsg struct {
		gen int
		ev  protocol.Event
	}
	closedMsg struct {
		gen int
		err error
	}
	retryMsg  struct{ gen int }
	resultMsg struct {
		what     string
		revision int64 // mutations: the new revision
		rec      *protocol.Receipt
		text     string // submissions: the prompt text
		err      error
	}
	listMsg struct {
		rows []pickRow
		err  error
	}
)

func dialCmd(dial func(context.Context) (*client.Client, error), gen int) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
		defer cancel()
		c, err := dial(ctx)
		if err != nil {
			return dialFailedMsg{gen: gen, err: err}
		}
		return connectedMsg{gen: gen, c: c}
	}
}

// closeCmd closes a connection that is no longer used (nil: nothing to do).
func closeCmd(c *client.Client) tea.Cmd {
	if c == nil {
		return nil
	}
	return func() tea.Msg {
		_ = c.Close()
		return nil
	}
}

func retryCmd(gen int) tea.Cmd {
	return tea.Tick(retryDelay, func(time.Time) tea.Msg { return retryMsg{gen: gen} })
}

// nextEvent waits for the next event of c; it is the only reader of Events.
func nextEvent(c *client.Client, gen int) tea.Cmd {
	return func() tea.Msg {
		ev, ok := <-c.Events()
		if !ok {
			return closedMsg{gen: gen, err: c.Err()}
		}
		return eventMsg{gen: gen, ev: ev}
	}
}

// attach is where a command attaches: detach first (old, subID), then
// resume sid or create with params.
type attach struct {
	old, subID string
	sid        string
	create     *protocol.SessionCreateParams
}

func attachCmd(c *client.Client, gen int, a attach) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
		defer cancel()
		if a.old != "" && a.subID != "" {
			_, _ = c.DetachSession(ctx, protocol.SessionDetachParams{SessionID: a.old, SubscriptionID: a.subID})
		}
		var snap protocol.Snapshot
		var err error
		if a.create != nil {
			snap, err = c.CreateSession(ctx, *a.create)
		} else {
			sid := a.sid
			snap, err = c.ResumeSession(ctx, protocol.SessionResumeParams{SessionID: &sid})
		}
		return attachedMsg{gen: gen, snap: snap, err: err}
	}
}

func submitCmd(c *client.Client, sid, text string) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
		defer cancel()
		id := ids.New("tui-", 12)
		rec, err := c.Submit(ctx, protocol.PromptSubmitParams{SessionID: sid, SubmissionID: &id, Text: text})
		return resultMsg{what: "submit", rec: &rec, text: text, err: err}
	}
}

func mutateCmd(c *client.Client, sid string, rev int64, op string, payload map[string]string) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
		defer cancel()
		raw, _ := json.Marshal(payload)
		res, err := c.MutateSession(ctx, protocol.SessionMutateParams{
			SessionID: sid, RequestID: ids.New("tui-"+op+"-", 12), ExpectedRevision: rev, Operation: op, Payload: raw,
		})
		return resultMsg{what: op, revision: res.Revision, text: payload["title"], err: err}
	}
}

func respondCmd(c *client.Client, p protocol.Prompt, sid, value string) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
		defer cancel()
		var err error
		if p.Kind == "clarify" {
			_, err = c.RespondClarify(ctx, protocol.ClarifyRespondParams{
				SessionID: sid, ExecutionGeneration: p.ExecutionGeneration, PromptID: p.PromptID, Answer: value})
		} else {
			_, err = c.RespondApproval(ctx, protocol.ApprovalRespondParams{
				SessionID: sid, ExecutionGeneration: p.ExecutionGeneration, PromptID: p.PromptID, Choice: value})
		}
		return resultMsg{what: p.Kind, err: err}
	}
}

func interruptCmd(c *client.Client, sid string, gen int64) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
		defer cancel()
		_, err := c.InterruptSession(ctx, protocol.SessionInterruptParams{SessionID: sid, ExecutionGeneration: gen})
		return resultMsg{what: "interrupt", err: err}
	}
}
