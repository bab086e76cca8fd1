package authority

import (
	"context"
	"fmt"

	"github.com/hermes-gateway/hermes/internal/agent"
	"github.com/hermes-gateway/hermes/internal/faults"
	"github.com/hermes-gateway/hermes/internal/model"
	"github.com/hermes-gateway/hermes/internal/store"
)

// summaryPrefix marks the summary message of a compressed transcript.
const summaryPrefix = "[Summary of the earlier conversation]\n"

// compressedChild is the child a compression publishes: msgs (from
// compacted) replace the transcript. Called with the FIFO reserved.
func compressedChild(l *live, msgs []store.Message) child {
	return child{
		endReason: "compression", modelConfig: map[string]any{"_compressed_from": l.current().Entry.SessionID},
		messages: msgs, beforeCommit: faults.CompressBeforeCommit, afterCommit: faults.CompressAfterCommit,
	}
}

// compacted builds the child transcript: protected head, the model's summary
// of the middle, protected tail (never starting with an orphaned tool result).
func (a *Authority) compacted(ctx context.Context, l *live) ([]store.Message, error) {
	r := l.current()
	rows, _, err := a.cfg.Store.Messages(ctx, r.Entry.SessionID, maxHistory)
	if err != nil {
		return nil, err
	}
	c := a.cfg.Settings().Compression
	head, tail := split(rows, c.ProtectFirstN, c.ProtectLastN)
	middle := rows[head:tail]
	if len(middle) == 0 {
		return rows, nil
	}
	summary, err := a.summarize(ctx, l, middle)
	if err != nil {
		return nil, err
	}
	out := append([]store.Message{}, rows[:head]...)
	out = append(out, store.Message{Role: "user", Content: summaryPrefix + summary})
	return append(out, rows[tail:]...), nil
}

// split returns the end of the protected head and the start of the
// protected tail, keeping tool results with their assistant call.
func split(rows []store.Message, first, last int) (int, int) {
	head := min(max(first, 0), len(rows))
	for head < len(rows) && rows[head].Role == "tool" {
		head++
	}
	tail := max(len(rows)-max(last, 0), head)
	for tail > head && tail < len(rows) && rows[tail].Role == "tool" {
		tail--
	}
	return head, tail
}

// summarize asks the session's model (its frozen endpoint and key) for the
// summary of middle (agent.Summarize); a failure is errModel's.
func (a *Authority) summarize(ctx context.Context, l *live, middle []store.Message) (string, error) {
	r := l.current()
	client := model.New(model.Config{BaseURL: r.Policy.BaseURL, APIKey: modelKey(l, r.Policy, a.cfg.Settings())})
	summary, err := agent.Summarize(ctx, client, r.Policy.Model, modelMessages(middle))
	if err != nil {
		return "", fmt.Errorf("compression summary: %w: %w", errModel, err) // model_unavailable (reasons)
	}
	return summary, nil
}

// autoCompress compresses before a turn when the transcript nears the
// context window (compression.threshold); it runs on the session's
// executor, so no turn is running and none can start.
func (a *Authority) autoCompress(ctx context.Context, l *live) {
	s := a.cfg.Settings()
	if !s.Compression.Enabled || s.ContextWindow <= 0 || s.Compression.Threshold <= 0 {
		return
	}
	rows, _, err := a.cfg.Store.Messages(ctx, l.current().Entry.SessionID, maxHistory)
	if err != nil || estimateTokens(rows) < int(s.Compression.Threshold*float64(s.ContextWindow)) {
		return
	}
	a.preCompact(ctx, l, "auto")
	msgs, err := a.compacted(ctx, l)
	if err != nil {
		a.log.Warn("automatic compression failed; the turn goes on uncompressed", "session_id", l.id, "err", err)
		return
	}
	err = a.publishChild(ctx, l, compressedChild(l, msgs), func(tx *store.Tx, j *journal) error {
		if _, err := tx.BumpRevision(l.id); err != nil {
			return err
		}
		return a.addInfo(tx, j, l, true, stamp{})
	})
	if err != nil {
		a.log.Warn("automatic compression not published", "session_id", l.id, "err", err)
	}
}

// estimateTokens is the usual 4-bytes-per-token estimate.
func estimateTokens(rows []store.Message) int {
	n := 0
	for _, m := range rows {
		n += len(m.Content) + len(m.ToolCallsJSON)
	}
	return n / 4
}
