-- 0001: the whole gateway schema. STRICT tables, CHECKs for enums, foreign
-- keys, units in column names. Optional values are NULL (never ''), so that
-- foreign keys and "not ended" read naturally in SQL.

-- One row per transcript: the logical session (id = chat_id) and every
-- physical child created by compression or reset (chat_id = the logical id).
CREATE TABLE sessions (
	id                 TEXT    PRIMARY KEY,
	source             TEXT    NOT NULL,
	user_id            TEXT    NOT NULL DEFAULT '',
	session_key        TEXT    NOT NULL DEFAULT '',
	chat_id            TEXT    NOT NULL DEFAULT '',
	model              TEXT    NOT NULL DEFAULT '',
	cwd                TEXT    NOT NULL DEFAULT '',
	title              TEXT,
	parent_session_id  TEXT    REFERENCES sessions(id) ON DELETE RESTRICT,
	started_at_ms      INTEGER NOT NULL,
	ended_at_ms        INTEGER,
	end_reason         TEXT,
	model_config       TEXT    NOT NULL DEFAULT '',
	archived           INTEGER NOT NULL DEFAULT 0 CHECK (archived IN (0, 1)),
	hidden             INTEGER NOT NULL DEFAULT 0 CHECK (hidden IN (0, 1)),
	runtime_generation INTEGER NOT NULL DEFAULT 0 CHECK (runtime_generation >= 0),
	runtime_revision   INTEGER NOT NULL DEFAULT 0 CHECK (runtime_revision >= 0),
	message_count      INTEGER NOT NULL DEFAULT 0 CHECK (message_count >= 0),
	last_event_seq     INTEGER NOT NULL DEFAULT 0 CHECK (last_event_seq >= 0),
	replay_epoch       TEXT    NOT NULL CHECK (replay_epoch != ''),
	last_activity_ms   INTEGER NOT NULL DEFAULT 0
) STRICT;
-- Listing and title lookup read logical rows only, newest first.
CREATE INDEX sessions_logical_started ON sessions (started_at_ms DESC) WHERE id = chat_id;
CREATE INDEX sessions_title ON sessions (title) WHERE title IS NOT NULL;
CREATE INDEX sessions_parent ON sessions (parent_session_id) WHERE parent_session_id IS NOT NULL;

CREATE TABLE messages (
	id            INTEGER PRIMARY KEY AUTOINCREMENT,
	session_id    TEXT    NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
	role          TEXT    NOT NULL CHECK (role IN ('system', 'developer', 'user', 'assistant', 'tool')),
	content       TEXT    NOT NULL DEFAULT '',
	tool_call_id  TEXT    NOT NULL DEFAULT '',
	tool_calls    TEXT    NOT NULL DEFAULT '',
	tool_name     TEXT    NOT NULL DEFAULT '',
	reasoning     TEXT    NOT NULL DEFAULT '',
	finish_reason TEXT    NOT NULL DEFAULT '',
	created_at_ms INTEGER NOT NULL
) STRICT;
CREATE INDEX messages_session ON messages (session_id, id);

CREATE TABLE state_meta (
	key   TEXT PRIMARY KEY,
	value TEXT
) STRICT, WITHOUT ROWID;

CREATE TABLE gateway_routing (
	scope         TEXT    NOT NULL DEFAULT '',
	session_key   TEXT    NOT NULL,
	entry_json    TEXT    NOT NULL,
	updated_at_ms INTEGER NOT NULL,
	PRIMARY KEY (scope, session_key)
) STRICT, WITHOUT ROWID;

-- The fence: exactly one row; every write transaction first checks that
-- epoch still equals the epoch its daemon began.
CREATE TABLE runtime_epoch (
	singleton   INTEGER PRIMARY KEY CHECK (singleton = 1),
	epoch       INTEGER NOT NULL CHECK (epoch >= 1),
	instance_id TEXT    NOT NULL
) STRICT;

-- The durable per-session FIFO. seq is the global admission order.
CREATE TABLE session_admissions (
	seq               INTEGER PRIMARY KEY AUTOINCREMENT,
	admission_id      TEXT    NOT NULL UNIQUE,
	request_id        TEXT    NOT NULL,
	principal_id      TEXT    NOT NULL,
	target_session_id TEXT    NOT NULL REFERENCES sessions(id) ON DELETE RESTRICT,
	lineage_json      TEXT    NOT NULL,
	payload_json      TEXT    NOT NULL,
	payload_digest    TEXT    NOT NULL,
	intent            TEXT    NOT NULL CHECK (intent IN ('queue', 'steer', 'redirect')),
	status            TEXT    NOT NULL CHECK (status IN ('queued', 'started', 'unknown', 'terminal')),
	outcome           TEXT    CHECK (outcome IN ('completed', 'failed', 'rejected', 'interrupted', 'cancelled')),
	owner_epoch       INTEGER NOT NULL,
	generation        INTEGER CHECK (generation >= 1),
	created_at_ms     INTEGER NOT NULL,
	settled_at_ms     INTEGER,
	-- The idempotency key of prompt.submit.
	UNIQUE (principal_id, target_session_id, request_id),
	-- An outcome exactly when terminal; a generation once claimed.
	CHECK ((status = 'terminal') = (outcome IS NOT NULL)),
	CHECK (status IN ('queued', 'terminal') OR generation IS NOT NULL)
) STRICT;
-- Start-up (orphan scan, sessions with pending rows, counts), claims and
-- pending lists read only non-terminal rows through this one partial index
-- (covering for all but the row fetches), so their cost grows with pending
-- work, not with history. One index, not several: every admission insert,
-- claim and settle writes each index, and submit latency is measured.
CREATE INDEX session_admissions_pending
	ON session_admissions (target_session_id, status, seq) WHERE status != 'terminal';

CREATE TABLE admission_results (
	admission_id TEXT PRIMARY KEY REFERENCES session_admissions(admission_id) ON DELETE CASCADE,
	result_json  TEXT NOT NULL
) STRICT, WITHOUT ROWID;

-- The durable event journal; seq is per logical session, strictly increasing.
CREATE TABLE session_events (
	session_id           TEXT    NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
	seq                  INTEGER NOT NULL CHECK (seq >= 1),
	type                 TEXT    NOT NULL,
	payload_json         TEXT    NOT NULL,
	authority_epoch      INTEGER NOT NULL,
	execution_generation INTEGER,
	admission_id         TEXT,
	created_at_ms        INTEGER NOT NULL,
	PRIMARY KEY (session_id, seq)
) STRICT, WITHOUT ROWID;

-- session.mutate idempotency: (principal, session, request) → digest, result.
CREATE TABLE session_mutations (
	principal_id TEXT NOT NULL,
	session_id   TEXT NOT NULL,
	request_id   TEXT NOT NULL,
	digest       TEXT NOT NULL,
	result_json  TEXT NOT NULL,
	PRIMARY KEY (principal_id, session_id, request_id)
) STRICT, WITHOUT ROWID;
