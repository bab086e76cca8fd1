package server

import (
	"context"
	"encoding/json"

	"github.com/hermes-gateway/hermes/internal/protocol"
)

func init() {
	register(protocol.MethodPromptSubmit, promptSubmit)
	register(protocol.MethodPromptReceipt, promptReceipt)
	register(protocol.MethodPromptCancel, promptCancel)
	register(protocol.MethodPromptResolveUnknown, promptResolveUnknown)
	register(protocol.MethodApprovalRespond, approvalRespond)
	register(protocol.MethodClarifyRespond, clarifyRespond)
}

func promptSubmit(ctx context.Context, c *conn, params json.RawMessage) (any, error) {
	p, err := decode[protocol.PromptSubmitParams](params)
	if err != nil {
		return nil, err
	}
	if !c.attached(p.SessionID) {
		return nil, errNotAttached
	}
	return c.s.cfg.Authority.Submit(ctx, c.p, p)
}

func promptReceipt(ctx context.Context, c *conn, params json.RawMessage) (any, error) {
	p, err := decode[protocol.AdmissionParams](params)
	if err != nil {
		return nil, err
	}
	return c.s.cfg.Authority.Receipt(ctx, c.p, p.SessionID, p.AdmissionID)
}

func promptCancel(ctx context.Context, c *conn, params json.RawMessage) (any, error) {
	p, err := decode[protocol.AdmissionParams](params)
	if err != nil {
		return nil, err
	}
	return c.s.cfg.Authority.Cancel(ctx, c.p, p.SessionID, p.AdmissionID)
}

func promptResolveUnknown(ctx context.Context, c *conn, params json.RawMessage) (any, error) {
	p, err := decode[protocol.ResolveUnknownParams](params)
	if err != nil {
		return nil, err
	}
	return c.s.cfg.Authority.ResolveUnknown(ctx, c.p, p)
}

// approvalRespond and clarifyRespond need a current subscriber: an answer
// comes from a viewer that sees the prompt.
func approvalRespond(ctx context.Context, c *conn, params json.RawMessage) (any, error) {
	p, err := decode[protocol.ApprovalRespondParams](params)
	if err != nil {
		return nil, err
	}
	if !c.attached(p.SessionID) {
		return nil, errNotAttached
	}
	return c.s.cfg.Authority.RespondApproval(ctx, c.p, p)
}

func clarifyRespond(ctx context.Context, c *conn, params json.RawMessage) (any, error) {
	p, err := decode[protocol.ClarifyRespondParams](params)
	if err != nil {
		return nil, err
	}
	if !c.attached(p.SessionID) {
		return nil, errNotAttached
	}
	return c.s.cfg.Authority.RespondClarify(ctx, c.p, p)
}
