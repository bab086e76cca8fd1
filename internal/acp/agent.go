package acp

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"

	"github.com/hermes-gateway/hermes/internal/client"
	"github.com/hermes-gateway/hermes/internal/ids"
	"github.com/hermes-gateway/hermes/internal/protocol"
)

// ProtocolVersion is the ACP version spoken.
const ProtocolVersion = 1

// Options configure Serve.
type Options struct {
	// Dial opens an authenticated gateway connection. It is called at the
	// first session request and again after a connection ended.
	Dial func(context.Context) (*client.Client, error)
	// Version is reported in agentInfo.
	Version string
}

// agent is one Serve call.
type agent struct {
	opts Options
	p    *peer
	ctx  context.Context // Serve's; cancelled when it returns
	wg   sync.WaitGroup  // every goroutine Serve started

	dialMu sync.Mutex // serializes dials; never held with mu
	mu     sync.Mutex
	conn   *gatewayConn // guarded by mu: the current connection; nil before the first
}

// Serve runs the ACP agent on r/w until r ends or ctx is done (then r is
// closed if it is an io.Closer, to stop the read). It joins every goroutine
// it started before returning.
func Serve(ctx context.Context, opts Options, r io.Reader, w io.Writer) error {
	ctx, cancel := context.WithCancel(ctx)
	a := &agent{opts: opts, p: newPeer(r, w), ctx: ctx}
	if cl, ok := r.(io.Closer); ok {
		stop := context.AfterFunc(ctx, func() { _ = cl.Close() })
		defer stop()
	}
	defer a.wg.Wait()
	defer a.closeConn()
	defer a.p.close()
	defer cancel()
	for {
		m, err := a.p.read()
		if err != nil {
			if errors.Is(err, io.EOF) || ctx.Err() != nil {
				return nil
			}
			return err
		}
		a.dispatch(m)
	}
}

type handler func(a *agent, params json.RawMessage) (any, *rpcError)

var handlers = map[string]handler{
	"initialize":     (*agent).initialize,
	"authenticate":   func(*agent, json.RawMessage) (any, *rpcError) { return struct{}{}, nil },
	"session/new":    (*agent).sessionNew,
	"session/load":   (*agent).sessionLoad,
	"session/prompt": (*agent).sessionPrompt,
}

// dispatch routes one message: responses to their calls, notifications
// inline, requests to their own goroutine (a prompt runs for long).
func (a *agent) dispatch(m *message) {
	switch {
	case m.Method == "" && m.ID != nil:
		a.p.deliver(m)
	case m.Method == "":
		a.p.reply(nil, nil, &rpcError{Code: codeInvalidRequest, Message: "invalid request"})
	case m.ID == nil:
		if m.Method == "session/cancel" {
			a.cancel(m.Params)
		}
	default:
		h, ok := handlers[m.Method]
		if !ok {
			a.p.reply(m.ID, nil, &rpcError{Code: codeNoMethod, Message: "unknown method: " + m.Method})
			return
		}
		a.wg.Add(1)
		go func() {
			defer a.wg.Done()
			res, err := h(a, m.Params)
			a.p.reply(m.ID, res, err)
		}()
	}
}

func (a *agent) initialize(json.RawMessage) (any, *rpcError) {
	return map[string]any{
		"protocolVersion": ProtocolVersion,
		"agentCapabilities": map[string]any{
			"loadSession":        true,
			"promptCapabilities": map[string]bool{"image": false, "audio": false, "embeddedContext": true},
		},
		"authMethods": []any{},
		"agentInfo":   map[string]string{"name": "hermes", "title": "Hermes Gateway", "version": a.opts.Version},
	}, nil
}

func invalidParams(err error) *rpcError {
	return &rpcError{Code: codeInvalidParams, Message: "invalid params: " + err.Error()}
}

func internal(what string, err error) *rpcError {
	return &rpcError{Code: codeInternal, Message: what + ": " + err.Error()}
}

type newParams struct {
	Cwd        string          `json:"cwd"`
	McpServers json.RawMessage `json:"mcpServers"`
}

// sessionNew creates a gateway session of source acp; its id is the ACP
// session id.
func (a *agent) sessionNew(raw json.RawMessage) (any, *rpcError) {
	var p newParams
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, invalidParams(err)
	}
	g, err := a.gateway()
	if err != nil {
		return nil, internal("gateway unavailable", err)
	}
	src, reqID := "acp", ids.New("acp-", 12)
	params := protocol.SessionCreateParams{RequestID: &reqID, Source: &src, Editor: editor(p.McpServers)}
	if p.Cwd != "" {
		params.Cwd = &p.Cwd
	}
	snap, err := g.c.CreateSession(a.ctx, params)
	if err != nil {
		return nil, internal("session.create", err)
	}
	g.markAttached(snap.SessionID)
	return map[string]string{"sessionId": snap.SessionID}, nil
}

// editor is the session.create editor descriptor: the editor's MCP servers.
func editor(mcp json.RawMessage) json.RawMessage {
	if len(mcp) == 0 || string(mcp) == "null" {
		mcp = json.RawMessage("[]")
	}
	b, _ := json.Marshal(map[string]json.RawMessage{"mcpServers": mcp})
	return b
}

type loadParams struct {
	SessionID  string          `json:"sessionId"`
	Cwd        string          `json:"cwd"`
	McpServers json.RawMessage `json:"mcpServers"`
}

// sessionLoad resumes the session and replays its transcript as
// session/update notifications before answering.
func (a *agent) sessionLoad(raw json.RawMessage) (any, *rpcError) {
	var p loadParams
	if err := json.Unmarshal(raw, &p); err != nil || p.SessionID == "" {
		return nil, invalidParams(errors.New("sessionId is required"))
	}
	g, err := a.gateway()
	if err != nil {
		return nil, internal("gateway unavailable", err)
	}
	snap, err := g.c.ResumeSession(a.ctx, protocol.SessionResumeParams{SessionID: &p.SessionID})
	if err != nil {
		return nil, internal("session.resume", err)
	}
	g.markAttached(p.SessionID)
	for _, u := range history(snap.Messages) {
		a.p.notify("session/update", map[string]any{"sessionId": p.SessionID, "update": u})
	}
	return struct{}{}, nil
}

type cancelParams struct {
	SessionID string `json:"sessionId"`
}

// cancel stops the session's running prompt (session/cancel).
func (a *agent) cancel(raw json.RawMessage) {
	var p cancelParams
	if json.Unmarshal(raw, &p) != nil {
		return
	}
	a.mu.Lock()
	g := a.conn
	a.mu.Unlock()
	if g != nil {
		g.pump.cancel(p.SessionID)
	}
}
