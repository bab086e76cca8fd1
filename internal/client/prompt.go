package client

import (
	"context"

	"github.com/hermes-gateway/hermes/internal/protocol"
)

// Submit calls prompt.submit; the receipt means durable admission, not
// completion. The connection must have created or resumed the session.
func (c *Client) Submit(ctx context.Context, p protocol.PromptSubmitParams) (protocol.Receipt, error) {
	return call[protocol.Receipt](ctx, c, protocol.MethodPromptSubmit, p)
}

// Receipt calls prompt.receipt.
func (c *Client) Receipt(ctx context.Context, p protocol.AdmissionParams) (protocol.Receipt, error) {
	return call[protocol.Receipt](ctx, c, protocol.MethodPromptReceipt, p)
}

// Cancel calls prompt.cancel (queued admissions only).
func (c *Client) Cancel(ctx context.Context, p protocol.AdmissionParams) (protocol.Receipt, error) {
	return call[protocol.Receipt](ctx, c, protocol.MethodPromptCancel, p)
}

// ResolveUnknown calls prompt.resolve_unknown.
func (c *Client) ResolveUnknown(ctx context.Context, p protocol.ResolveUnknownParams) (protocol.Receipt, error) {
	return call[protocol.Receipt](ctx, c, protocol.MethodPromptResolveUnknown, p)
}

// RespondApproval calls approval.respond.
func (c *Client) RespondApproval(ctx context.Context, p protocol.ApprovalRespondParams) (protocol.RespondResult, error) {
	return call[protocol.RespondResult](ctx, c, protocol.MethodApprovalRespond, p)
}

// RespondClarify calls clarify.respond.
func (c *Client) RespondClarify(ctx context.Context, p protocol.ClarifyRespondParams) (protocol.RespondResult, error) {
	return call[protocol.RespondResult](ctx, c, protocol.MethodClarifyRespond, p)
}
