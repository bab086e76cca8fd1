package client

import (
	"context"

	"github.com/hermes-gateway/hermes/internal/protocol"
)

// Messages calls session.messages: one page of a transcript, without
// attaching.
func (c *Client) Messages(ctx context.Context, p protocol.SessionMessagesParams) (protocol.SessionMessagesResult, error) {
	return call[protocol.SessionMessagesResult](ctx, c, protocol.MethodSessionMessages, p)
}

// ImportSession calls session.import: a new session holding the messages.
func (c *Client) ImportSession(ctx context.Context, p protocol.SessionImportParams) (protocol.SessionImportResult, error) {
	return call[protocol.SessionImportResult](ctx, c, protocol.MethodSessionImport, p)
}

// FindSessions calls session.find: the sessions whose id has the prefix.
func (c *Client) FindSessions(ctx context.Context, prefix string) (protocol.SessionFindResult, error) {
	return call[protocol.SessionFindResult](ctx, c, protocol.MethodSessionFind, protocol.SessionFindParams{Prefix: prefix})
}
