package acp

import (
	"encoding/json"
	"errors"
	"strings"
	"sync"

	"github.com/hermes-gateway/hermes/internal/client"
	"github.com/hermes-gateway/hermes/internal/ids"
	"github.com/hermes-gateway/hermes/internal/protocol"
)

// gatewayConn is one gateway connection and its event pump.
type gatewayConn struct {
	c    *client.Client
	pump *pump

	mu       sync.Mutex
	attached map[string]bool // guarded by mu: sessions resumed or created on c
}

// gateway returns the live connection, dialing a new one (and starting its
// pump) when there is none or the last one ended.
func (a *agent) gateway() (*gatewayConn, error) {
	a.dialMu.Lock()
	defer a.dialMu.Unlock()
	a.mu.Lock()
	g := a.conn
	a.mu.Unlock()
	if g != nil && !g.pump.ended() {
		return g, nil
	}
	if a.opts.Dial == nil {
		return nil, errors.New("no gateway")
	}
	c, err := a.opts.Dial(a.ctx)
	if err != nil {
		return nil, err
	}
	g = &gatewayConn{c: c, attached: map[string]bool{}}
	g.pump = newPump(a, g)
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		g.pump.run()
	}()
	a.mu.Lock()
	old := a.conn
	a.conn = g
	a.mu.Unlock()
	if old != nil {
		_ = old.c.Close()
	}
	return g, nil
}

func (a *agent) closeConn() {
	a.mu.Lock()
	g := a.conn
	a.mu.Unlock()
	if g != nil {
		_ = g.c.Close()
	}
}

func (g *gatewayConn) markAttached(sid string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.attached[sid] = true
}

// ensureAttached resumes sid on this connection unless it already is.
func (g *gatewayConn) ensureAttached(a *agent, sid string) error {
	g.mu.Lock()
	ok := g.attached[sid]
	g.mu.Unlock()
	if ok {
		return nil
	}
	if _, err := g.c.ResumeSession(a.ctx, protocol.SessionResumeParams{SessionID: &sid}); err != nil {
		return err
	}
	g.markAttached(sid)
	return nil
}

type promptParams struct {
	SessionID string            `json:"sessionId"`
	Prompt    []json.RawMessage `json:"prompt"`
}

// sessionPrompt submits the prompt and waits for the admission's end; the
// pump streams its events meanwhile.
func (a *agent) sessionPrompt(raw json.RawMessage) (any, *rpcError) {
	var p promptParams
	if err := json.Unmarshal(raw, &p); err != nil || p.SessionID == "" {
		return nil, invalidParams(errors.New("sessionId and prompt are required"))
	}
	text := promptText(p.Prompt)
	if strings.TrimSpace(text) == "" {
		return nil, invalidParams(errors.New("the prompt has no text"))
	}
	g, err := a.gateway()
	if err != nil {
		return nil, internal("gateway unavailable", err)
	}
	if err := g.ensureAttached(a, p.SessionID); err != nil {
		return nil, internal("session.resume", err)
	}
	t, err := g.pump.begin(p.SessionID)
	if err != nil {
		return nil, internal("session/prompt", err)
	}
	subID := ids.New("acp-", 12)
	rec, err := g.c.Submit(a.ctx, protocol.PromptSubmitParams{SessionID: p.SessionID, SubmissionID: &subID, Text: text})
	if err != nil {
		g.pump.end(p.SessionID, t)
		return nil, internal("prompt.submit", err)
	}
	g.pump.admitted(p.SessionID, t, rec.AdmissionID)
	var end turnEnd
	select {
	case end = <-t.result:
	case <-a.ctx.Done():
		return nil, &rpcError{Code: codeInternal, Message: "agent stopping"}
	}
	return stopReason(end)
}

// stopReason maps the admission's outcome to an ACP stop reason; a failed
// turn is an error.
func stopReason(end turnEnd) (any, *rpcError) {
	if end.err != nil {
		return nil, internal("turn", end.err)
	}
	reason := ""
	switch end.outcome {
	case protocol.OutcomeCompleted:
		reason = "end_turn"
	case protocol.OutcomeInterrupted, protocol.OutcomeCancelled:
		reason = "cancelled"
	case protocol.OutcomeRejected:
		reason = "refusal"
	default:
		msg := "the turn ended " + end.outcome
		if end.detail != "" {
			msg += ": " + end.detail
		}
		return nil, &rpcError{Code: codeInternal, Message: msg}
	}
	return map[string]string{"stopReason": reason}, nil
}

// promptText joins the text of the prompt's content blocks; resources are
// named by their URI (embedded text included).
func promptText(blocks []json.RawMessage) string {
	var parts []string
	for _, raw := range blocks {
		var b struct {
			Type     string `json:"type"`
			Text     string `json:"text"`
			URI      string `json:"uri"`
			Resource struct {
				URI  string `json:"uri"`
				Text string `json:"text"`
			} `json:"resource"`
		}
		if json.Unmarshal(raw, &b) != nil {
			continue
		}
		switch b.Type {
		case "text":
			parts = append(parts, b.Text)
		case "resource_link":
			parts = append(parts, "@"+b.URI)
		case "resource":
			parts = append(parts, "@"+b.Resource.URI+"\n"+b.Resource.Text)
		}
	}
	return strings.Join(parts, "\n")
}
