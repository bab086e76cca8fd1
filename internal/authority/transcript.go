package authority

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hermes-gateway/hermes/internal/auth"
	"github.com/hermes-gateway/hermes/internal/model"
	"github.com/hermes-gateway/hermes/internal/protocol"
	"github.com/hermes-gateway/hermes/internal/session"
	"github.com/hermes-gateway/hermes/internal/store"
)

// importPrefix keys, in state_meta, the digest of the params that created
// an imported session (session.import idempotency).
const importPrefix = "gateway.import.v1:"

// Messages answers session.messages: one page of the session's current
// physical transcript, read without attaching.
func (a *Authority) Messages(ctx context.Context, p auth.Principal, params protocol.SessionMessagesParams) (_ protocol.SessionMessagesResult, err error) {
	defer a.reply(&err)
	limit, before := protocol.MessagesPageDefault, int64(0)
	if params.Limit != nil {
		if *params.Limit < 1 || *params.Limit > protocol.MessagesPageMax {
			return protocol.SessionMessagesResult{}, protocol.Errorf(protocol.ReasonInvalidParams, "limit must be 1..%d", protocol.MessagesPageMax)
		}
		limit = *params.Limit
	}
	if params.Before != nil {
		if *params.Before < 1 {
			return protocol.SessionMessagesResult{}, protocol.Errorf(protocol.ReasonInvalidParams, "before must be a positive row_id")
		}
		before = *params.Before
	}
	l, err := a.access(ctx, p, params.SessionID, protocol.CapRead)
	if err != nil {
		return protocol.SessionMessagesResult{}, err
	}
	rows, more, total, err := a.cfg.Store.MessagesPage(ctx, l.current().Entry.SessionID, before, limit)
	if err != nil {
		return protocol.SessionMessagesResult{}, protocol.Wrap(protocol.ReasonStorageUnavailable, err)
	}
	return protocol.SessionMessagesResult{SessionID: l.id, Messages: wireMessages(rows), MessageCount: total, More: more}, nil
}

// Find answers session.find: the sessions the caller may access whose id
// starts with the prefix, so that clients accept a short unique id.
func (a *Authority) Find(ctx context.Context, p auth.Principal, params protocol.SessionFindParams) (_ protocol.SessionFindResult, err error) {
	defer a.reply(&err)
	if err := a.permit(p, protocol.CapRead); err != nil {
		return protocol.SessionFindResult{}, err
	}
	rest, ok := strings.CutPrefix(params.Prefix, "local-")
	if !ok || len(rest) < protocol.FindMinPrefix || len(params.Prefix) > 256 {
		return protocol.SessionFindResult{}, protocol.Errorf(protocol.ReasonInvalidParams,
			"prefix must be local- and at least %d more characters", protocol.FindMinPrefix)
	}
	rows, err := a.cfg.Store.SessionsByPrefix(ctx, params.Prefix, 1000)
	if err != nil {
		return protocol.SessionFindResult{}, protocol.Wrap(protocol.ReasonStorageUnavailable, err)
	}
	out := protocol.SessionFindResult{Sessions: []protocol.SessionSummary{}}
	for _, row := range rows {
		if row.UserID != p.Subject && !p.Operator() {
			continue
		}
		if len(out.Sessions) == protocol.FindMaxMatches {
			out.More = true
			break
		}
		out.Sessions = append(out.Sessions, a.reads.summary(ctx, row))
	}
	return out, nil
}

// Import answers session.import: a new session whose creator is the caller
// and whose transcript is the given messages, created and filled in one
// transaction. Nothing but messages is imported. A repeat of the same
// request_id with the same params returns the same session.
func (a *Authority) Import(ctx context.Context, p auth.Principal, params protocol.SessionImportParams) (_ protocol.SessionImportResult, err error) {
	defer a.reply(&err)
	if err := a.permit(p, protocol.CapCreate); err != nil {
		return protocol.SessionImportResult{}, err
	}
	if a.isDraining() {
		return protocol.SessionImportResult{}, protocol.Errorf(protocol.ReasonRuntimeDraining, "the gateway is shutting down")
	}
	if n := utf8.RuneCountInString(params.RequestID); n < 1 || n > 256 {
		return protocol.SessionImportResult{}, protocol.Errorf(protocol.ReasonInvalidParams, "request_id: must be 1..256 characters")
	}
	rows, err := importRows(params.Messages)
	if err != nil {
		return protocol.SessionImportResult{}, err
	}
	digest, err := importDigest(params)
	if err != nil {
		return protocol.SessionImportResult{}, protocol.Wrap(protocol.ReasonStorageUnavailable, err)
	}
	sid := session.LogicalID(a.cfg.ProfileID, p.Subject, params.RequestID)
	result := protocol.SessionImportResult{SessionID: sid, MessageCount: len(rows)}
	if done, err := a.repeatImport(ctx, sid, digest); done || err != nil {
		return result, err
	}
	src := "cli"
	create := protocol.SessionCreateParams{RequestID: &params.RequestID, Source: &src, Cwd: params.Cwd, Model: params.Model, Title: params.Title}
	settings := a.cfg.Settings()
	defaults := settings.Defaults
	defaults.ProfileID = a.cfg.ProfileID
	launch, err := session.Build(create, p.Subject, defaults, time.Now().UTC())
	if err != nil {
		return protocol.SessionImportResult{}, err
	}
	if err := a.freezeHooks(&launch.Receipt, settings); err != nil { // as session.create: a no-op without accept_hooks
		return protocol.SessionImportResult{}, err
	}
	err = a.commitCreate(ctx, launch, func(tx *store.Tx) error {
		if err := tx.ImportMessages(launch.Receipt.Entry.SessionID, rows); err != nil {
			return err
		}
		return tx.PutMeta(importPrefix+sid, digest)
	})
	if err != nil {
		return protocol.SessionImportResult{}, err
	}
	return result, nil
}

// repeatImport answers an import whose session already exists: done with
// no error when it was this very import.
func (a *Authority) repeatImport(ctx context.Context, sid, digest string) (bool, error) {
	prev, ok, err := a.cfg.Store.Meta(ctx, importPrefix+sid)
	if err != nil {
		return true, protocol.Wrap(protocol.ReasonStorageUnavailable, err)
	}
	if ok {
		if prev != digest {
			return true, protocol.Errorf(protocol.ReasonInvalidParams, "request_id was already used for a different session.import")
		}
		return true, nil
	}
	if _, ok, err := a.storedReceipt(ctx, sid); err != nil || ok {
		return true, firstErr(err, protocol.Errorf(protocol.ReasonInvalidParams, "request_id was already used for a session.create"))
	}
	return false, nil
}

// importDigest fingerprints everything of an import but its request_id.
func importDigest(params protocol.SessionImportParams) (string, error) {
	params.RequestID = ""
	raw, err := json.Marshal(params)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:]), nil
}

// importRows validates the messages of an import and turns them into
// rows; any bad message is invalid_params naming its index.
func importRows(msgs []protocol.ImportMessage) ([]store.Message, error) {
	if len(msgs) == 0 || len(msgs) > protocol.ImportMaxMessages {
		return nil, protocol.Errorf(protocol.ReasonInvalidParams, "messages: must hold 1..%d messages", protocol.ImportMaxMessages)
	}
	rows := make([]store.Message, 0, len(msgs))
	for i, m := range msgs {
		row, err := importRow(m)
		if err != nil {
			return nil, protocol.Errorf(protocol.ReasonInvalidParams, "messages[%d]: %s", i, err)
		}
		rows = append(rows, row)
	}
	return rows, nil
}

func importRow(m protocol.ImportMessage) (store.Message, error) {
	row := store.Message{Role: m.Role, Content: m.Content, Reasoning: m.Reasoning}
	switch m.Role {
	case "user", "assistant", "tool":
	default:
		return row, fmt.Errorf("role must be user, assistant or tool")
	}
	if m.Role != "tool" && (m.ToolCallID != "" || m.ToolName != "") {
		return row, fmt.Errorf("tool_call_id and tool_name belong to tool messages")
	}
	if m.Role == "tool" {
		if m.ToolCallID == "" {
			return row, fmt.Errorf("a tool message needs its tool_call_id")
		}
		row.ToolCallID, row.ToolName = m.ToolCallID, m.ToolName
	}
	if m.Role != "assistant" && (len(m.ToolCalls) > 0 || m.Reasoning != "") {
		return row, fmt.Errorf("tool_calls and reasoning belong to assistant messages")
	}
	if len(m.ToolCalls) > 0 && string(m.ToolCalls) != "null" {
		calls, err := importToolCalls(m.ToolCalls)
		if err != nil {
			return row, err
		}
		row.ToolCallsJSON = calls
	}
	if m.Timestamp != "" {
		t, err := time.Parse(time.RFC3339, m.Timestamp)
		if err != nil {
			return row, fmt.Errorf("timestamp must be RFC 3339")
		}
		row.CreatedAtMs = t.UnixMilli()
	}
	return row, nil
}

// importToolCalls decodes tool_calls strictly and returns them re-encoded
// exactly as a turn records them.
func importToolCalls(raw json.RawMessage) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var calls []model.ToolCall
	if err := dec.Decode(&calls); err != nil || dec.More() {
		return "", fmt.Errorf("tool_calls must be an array of {id, type, function: {name, arguments}}")
	}
	for _, c := range calls {
		if c.ID == "" || c.Type != "function" || c.Function.Name == "" {
			return "", fmt.Errorf("each tool call needs an id, type \"function\" and a function name")
		}
	}
	b, err := json.Marshal(calls)
	return string(b), err
}
