package store

// The write-path statements, prepared once on the single writer connection at
// Open and bound to each transaction with (*sql.Tx).Stmt, which reuses the
// connection's prepared statement: a hot transaction never re-parses SQL.

type stmtID int

const (
	sFence stmtID = iota
	sMetaGet
	sMetaPut
	sMetaDelete
	sSessionGet
	sSessionRuntime
	sSessionHeader
	sSessionUsage
	sSessionInsert
	sSessionEnd
	sSessionTitle
	sSessionArchived
	sSessionRevision
	sRouteGet
	sRoutePut
	sAdmissionInsert
	sAdmissionInsertOnce
	sAdmissionByKey
	sAdmissionByID
	sAdmissionsPending
	sAdmissionsPendingBrief
	sClaimScan
	sClaimGeneration
	sAdmissionMove
	sResultPut
	sEventBump
	sEventInsert
	sMessageBump
	sMessageInsert
	sMessagesAll
	sMutationGet
	sMutationPut
	nStmts
)

const (
	sessionCols = `id, source, user_id, session_key, chat_id, model, cwd, coalesce(title, ''),
	coalesce(parent_session_id, ''), coalesce(end_reason, ''), model_config, replay_epoch,
	started_at_ms, coalesce(ended_at_ms, 0), last_activity_ms, archived, hidden,
	runtime_generation, runtime_revision, message_count, last_event_seq,
	usage_prompt_tokens, usage_completion_tokens, usage_cached_tokens`
	admissionCols = `seq, admission_id, request_id, principal_id, target_session_id, lineage_json,
	payload_json, payload_digest, intent, status, coalesce(outcome, ''), owner_epoch,
	coalesce(generation, 0), created_at_ms, coalesce(settled_at_ms, 0)`
	messageCols = `id, session_id, role, content, tool_call_id, tool_calls, tool_name, reasoning,
	finish_reason, created_at_ms`
	eventCols = `e.session_id, e.seq, e.type, e.payload_json, e.authority_epoch,
	coalesce(e.execution_generation, 0), coalesce(e.admission_id, ''), s.replay_epoch, e.created_at_ms`
)

var stmtSQL = [nStmts]string{
	sFence:      `SELECT epoch FROM runtime_epoch WHERE singleton = 1`,
	sMetaGet:    `SELECT coalesce(value, '') FROM state_meta WHERE key = ?`,
	sMetaPut:    `INSERT INTO state_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
	sMetaDelete: `DELETE FROM state_meta WHERE key = ?`,
	sSessionGet: `SELECT ` + sessionCols + ` FROM sessions WHERE id = ?`,
	// The two counters a session.info event carries, without the wide row.
	sSessionRuntime: `SELECT runtime_generation, runtime_revision FROM sessions WHERE id = ?`,
	sSessionHeader: `SELECT runtime_generation, runtime_revision, coalesce(title, ''), model,
	usage_prompt_tokens, usage_completion_tokens, usage_cached_tokens FROM sessions WHERE id = ?`,
	sSessionUsage: `UPDATE sessions SET usage_prompt_tokens = usage_prompt_tokens + ?,
	usage_completion_tokens = usage_completion_tokens + ?, usage_cached_tokens = usage_cached_tokens + ? WHERE id = ?`,
	sSessionInsert: `INSERT INTO sessions (id, source, user_id, session_key, chat_id, model, cwd, title,
	parent_session_id, end_reason, model_config, replay_epoch, started_at_ms, ended_at_ms,
	last_activity_ms, archived, hidden, runtime_generation, runtime_revision)
	VALUES (?, ?, ?, ?, ?, ?, ?, nullif(?, ''), nullif(?, ''), nullif(?, ''), ?, ?, ?, nullif(?, 0), ?, ?, ?, ?, ?)`,
	sSessionEnd:      `UPDATE sessions SET ended_at_ms = ?, end_reason = nullif(?, '') WHERE id = ?`,
	sSessionTitle:    `UPDATE sessions SET title = nullif(?, '') WHERE id = ?`,
	sSessionArchived: `UPDATE sessions SET archived = ? WHERE id = ?`,
	sSessionRevision: `UPDATE sessions SET runtime_revision = runtime_revision + 1 WHERE id = ? RETURNING runtime_revision`,
	sRouteGet:        `SELECT scope, session_key, entry_json, updated_at_ms FROM gateway_routing WHERE scope = ? AND session_key = ?`,
	sRoutePut: `INSERT INTO gateway_routing (scope, session_key, entry_json, updated_at_ms) VALUES (?, ?, ?, ?)
	ON CONFLICT (scope, session_key) DO UPDATE SET entry_json = excluded.entry_json, updated_at_ms = excluded.updated_at_ms`,
	sAdmissionInsert: `INSERT INTO session_admissions (admission_id, request_id, principal_id, target_session_id,
	lineage_json, payload_json, payload_digest, intent, status, owner_epoch, created_at_ms)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'queued', ?, ?) RETURNING seq`,
	// The idempotent admission in one statement: no row back means the key
	// exists (only that UNIQUE constraint is absorbed; any other failure,
	// e.g. a missing session, is still an error).
	sAdmissionInsertOnce: `INSERT INTO session_admissions (admission_id, request_id, principal_id, target_session_id,
	lineage_json, payload_json, payload_digest, intent, status, owner_epoch, created_at_ms)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'queued', ?, ?)
	ON CONFLICT (principal_id, target_session_id, request_id) DO NOTHING RETURNING seq`,
	sAdmissionByKey: `SELECT ` + admissionCols + ` FROM session_admissions
	WHERE principal_id = ? AND target_session_id = ? AND request_id = ?`,
	sAdmissionByID: `SELECT ` + admissionCols + ` FROM session_admissions WHERE admission_id = ?`,
	sAdmissionsPending: `SELECT ` + admissionCols + ` FROM session_admissions
	WHERE target_session_id = ? AND status != 'terminal' ORDER BY seq`,
	// The pending head as a session.info event lists it: the text is taken
	// out of payload_json by SQLite, so no row is decoded in Go.
	sAdmissionsPendingBrief: `SELECT seq, admission_id, request_id, status, coalesce(generation, 0),
	coalesce(iif(json_valid(payload_json), json_extract(payload_json, '$.text')), '')
	FROM session_admissions WHERE target_session_id = ? AND status != 'terminal' ORDER BY seq LIMIT ?`,
	// One pass over the session's pending rows (partial index) decides a claim.
	sClaimScan: `SELECT coalesce(sum(status = 'unknown'), 0), coalesce(sum(status = 'started'), 0),
	min(CASE WHEN status = 'queued' THEN seq END)
	FROM session_admissions WHERE target_session_id = ? AND status != 'terminal'`,
	sClaimGeneration: `UPDATE sessions SET runtime_generation = runtime_generation + 1 WHERE id = ? RETURNING runtime_generation`,
	// The one statement that moves an admission (Tx.move). ?1 is the status
	// the transition table computed, guarded by ?2 seq, ?3 the status the
	// caller read the row in and ?4 the newest owner epoch it may have: a row
	// that moved since is zero rows, and keeps every column. ?5 outcome and
	// ?6 settled_at_ms are set exactly on a move into terminal (NULL before
	// and after any other move, as the CHECKs require); ?7 > 0 is a claim's
	// new generation, which also takes the row into ?8, the claiming epoch.
	sAdmissionMove: `UPDATE session_admissions SET status = ?1, outcome = nullif(?5, ''),
	settled_at_ms = nullif(?6, 0), generation = coalesce(nullif(?7, 0), generation),
	owner_epoch = iif(?7 > 0, ?8, owner_epoch)
	WHERE seq = ?2 AND status = ?3 AND owner_epoch <= ?4 RETURNING ` + admissionCols,
	sResultPut: `INSERT INTO admission_results (admission_id, result_json) VALUES (?, ?)
	ON CONFLICT (admission_id) DO UPDATE SET result_json = excluded.result_json`,
	sEventBump: `UPDATE sessions SET last_event_seq = last_event_seq + 1 WHERE id = ? RETURNING last_event_seq, replay_epoch`,
	sEventInsert: `INSERT INTO session_events (session_id, seq, type, payload_json, authority_epoch,
	execution_generation, admission_id, created_at_ms) VALUES (?, ?, ?, ?, ?, nullif(?, 0), nullif(?, ''), ?)`,
	sMessageBump: `UPDATE sessions SET message_count = message_count + 1, last_activity_ms = max(last_activity_ms, ?) WHERE id = ?`,
	sMessageInsert: `INSERT INTO messages (session_id, role, content, tool_call_id, tool_calls, tool_name, reasoning,
	finish_reason, created_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
	sMessagesAll: `SELECT ` + messageCols + ` FROM messages WHERE session_id = ? ORDER BY id`,
	sMutationGet: `SELECT digest, result_json FROM session_mutations WHERE principal_id = ? AND session_id = ? AND request_id = ?`,
	sMutationPut: `INSERT INTO session_mutations (principal_id, session_id, request_id, digest, result_json) VALUES (?, ?, ?, ?, ?)`,
}
