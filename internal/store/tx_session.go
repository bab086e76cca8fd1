package store

import "fmt"

// Meta reads a state_meta value.
func (tx *Tx) Meta(key string) (string, bool, error) {
	var v string
	err := tx.queryRow(sMetaGet, key).Scan(&v)
	return maybe(v, err, "meta "+key)
}

// PutMeta inserts or replaces a state_meta value.
func (tx *Tx) PutMeta(key, value string) error {
	if _, err := tx.exec(sMetaPut, key, value); err != nil {
		return fmt.Errorf("put meta %s: %w", key, classify(err))
	}
	return nil
}

// DeleteMeta removes a state_meta key (absent is fine).
func (tx *Tx) DeleteMeta(key string) error {
	if _, err := tx.exec(sMetaDelete, key); err != nil {
		return fmt.Errorf("delete meta %s: %w", key, classify(err))
	}
	return nil
}

// Session reads a sessions row (ErrNotFound).
func (tx *Tx) Session(id string) (Session, error) {
	s, err := scanSession(tx.queryRow(sSessionGet, id))
	return one(s, err, "session "+id)
}

// Runtime reads a session's runtime_generation and runtime_revision
// (ErrNotFound): the part of the row a session.info event needs.
func (tx *Tx) Runtime(id string) (generation, revision int64, err error) {
	err = tx.queryRow(sSessionRuntime, id).Scan(&generation, &revision)
	_, err = one(0, err, "session "+id)
	return generation, revision, err
}

// Header reads what a session.info event carries of the row (ErrNotFound).
func (tx *Tx) Header(id string) (Header, error) {
	var h Header
	err := tx.queryRow(sSessionHeader, id).Scan(&h.Generation, &h.Revision, &h.Title, &h.Model,
		&h.Usage.Prompt, &h.Usage.Completion, &h.Usage.Cached)
	return one(h, err, "session "+id)
}

// AddUsage adds u to the session's usage counters (ErrNotFound). Negative
// counts are refused by the table's CHECKs once the sum goes below 0, so
// callers pass what a server reported, clamped at 0.
func (tx *Tx) AddUsage(id string, u Usage) error {
	if u == (Usage{}) {
		return nil
	}
	return tx.execOne("add usage "+id, sSessionUsage, u.Prompt, u.Completion, u.Cached, id)
}

// InsertSession inserts a sessions row; ErrConflict if the id exists. An
// empty ReplayEpoch gets a random one, a zero StartedAtMs gets now, and
// MessageCount/LastEventSeq start at 0 whatever s says (they are maintained
// by AppendMessage and AppendEvent).
func (tx *Tx) InsertSession(s Session) error {
	if s.ReplayEpoch == "" {
		s.ReplayEpoch = randomHex(8)
	}
	if s.StartedAtMs == 0 {
		s.StartedAtMs = nowMs()
	}
	if s.LastActivityMs == 0 {
		s.LastActivityMs = s.StartedAtMs
	}
	_, err := tx.exec(sSessionInsert, s.ID, s.Source, s.UserID, s.SessionKey, s.ChatID, s.Model, s.Cwd,
		s.Title, s.ParentSessionID, s.EndReason, s.ModelConfig, s.ReplayEpoch, s.StartedAtMs, s.EndedAtMs,
		s.LastActivityMs, s.Archived, s.Hidden, s.RuntimeGeneration, s.RuntimeRevision)
	if err != nil {
		return fmt.Errorf("insert session %s: %w", s.ID, classify(err))
	}
	return nil
}

// EndSession stamps ended_at_ms and end_reason (ErrNotFound).
func (tx *Tx) EndSession(id, reason string, atMs int64) error {
	return tx.execOne("end session "+id, sSessionEnd, atMs, reason, id)
}

// SetTitle sets the title ("" clears it). It does not bump the revision.
func (tx *Tx) SetTitle(id, title string) error {
	return tx.execOne("set title "+id, sSessionTitle, title, id)
}

// SetArchived sets the archived flag. It does not bump the revision.
func (tx *Tx) SetArchived(id string, archived bool) error {
	return tx.execOne("set archived "+id, sSessionArchived, archived, id)
}

// BumpRevision increments runtime_revision and returns the new value.
func (tx *Tx) BumpRevision(id string) (int64, error) {
	var rev int64
	err := tx.queryRow(sSessionRevision, id).Scan(&rev)
	return one(rev, err, "bump revision "+id)
}

// Route reads a gateway_routing row.
func (tx *Tx) Route(scope, key string) (Route, bool, error) {
	var r Route
	err := tx.queryRow(sRouteGet, scope, key).Scan(&r.Scope, &r.SessionKey, &r.EntryJSON, &r.UpdatedAtMs)
	return maybe(r, err, "route "+key)
}

// PutRoute inserts or replaces a gateway_routing row; UpdatedAtMs 0 = now.
func (tx *Tx) PutRoute(r Route) error {
	if r.UpdatedAtMs == 0 {
		r.UpdatedAtMs = nowMs()
	}
	if _, err := tx.exec(sRoutePut, r.Scope, r.SessionKey, r.EntryJSON, r.UpdatedAtMs); err != nil {
		return fmt.Errorf("put route %s: %w", r.SessionKey, classify(err))
	}
	return nil
}

// Mutation reads the stored outcome of a session.mutate request.
func (tx *Tx) Mutation(principalID, sessionID, requestID string) (digest, resultJSON string, ok bool, err error) {
	err = tx.queryRow(sMutationGet, principalID, sessionID, requestID).Scan(&digest, &resultJSON)
	_, ok, err = maybe(struct{}{}, err, "mutation "+requestID)
	return digest, resultJSON, ok, err
}

// PutMutation records a session.mutate outcome; ErrConflict if one exists.
func (tx *Tx) PutMutation(principalID, sessionID, requestID, digest, resultJSON string) error {
	if _, err := tx.exec(sMutationPut, principalID, sessionID, requestID, digest, resultJSON); err != nil {
		return fmt.Errorf("put mutation %s: %w", requestID, classify(err))
	}
	return nil
}
