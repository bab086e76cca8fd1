-- 0002: checkpoints and rewinds (issue 11). The snapshots themselves are
-- commits of a shadow git repository per cwd under the profile home; these
-- rows say which commit belongs to which turn and keep a rewind's plan
-- durable before any file is touched.

-- One row per checkpointed turn. snapshot_commit is the tree just before the
-- turn's first mutating tool call; ledger_commit the tree the turn left
-- (NULL until the turn ended, and for ever if the daemon died during it:
-- then everything the turn did counts as unknown, so a rewind over it
-- conflicts unless forced). transcript_id + message_count locate the
-- conversation as it was before the turn.
CREATE TABLE session_checkpoints (
	checkpoint_id   TEXT    PRIMARY KEY,
	session_id      TEXT    NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
	admission_id    TEXT    NOT NULL REFERENCES session_admissions(admission_id) ON DELETE CASCADE,
	cwd             TEXT    NOT NULL,
	snapshot_commit TEXT    NOT NULL CHECK (length(snapshot_commit) >= 40),
	ledger_commit   TEXT    CHECK (ledger_commit IS NULL OR length(ledger_commit) >= 40),
	ledger_skipped  TEXT    NOT NULL DEFAULT '[]',
	transcript_id   TEXT    NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
	message_count   INTEGER NOT NULL CHECK (message_count >= 0),
	files           INTEGER NOT NULL CHECK (files >= 0),
	skipped_json    TEXT    NOT NULL DEFAULT '[]',
	summary         TEXT    NOT NULL DEFAULT '',
	created_at_ms   INTEGER NOT NULL,
	ledger_at_ms    INTEGER,
	pruned_at_ms    INTEGER,
	-- At most one checkpoint per turn.
	UNIQUE (session_id, admission_id)
) STRICT;
CREATE INDEX session_checkpoints_session ON session_checkpoints (session_id, created_at_ms);
CREATE INDEX session_checkpoints_live ON session_checkpoints (created_at_ms) WHERE pruned_at_ms IS NULL;

-- One row per rewind that touched files or the transcript. A 'planned' row
-- is written before anything is changed; the next start completes it (each
-- step is re-runnable) and marks it 'done' with its session.rewound event.
-- before_commit / after_commit are the trees around a files rewind: the
-- rewind's own changes never count as the user's in a later rewind.
CREATE TABLE session_rewinds (
	rewind_id      TEXT    PRIMARY KEY,
	session_id     TEXT    NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
	checkpoint_id  TEXT    NOT NULL REFERENCES session_checkpoints(checkpoint_id) ON DELETE CASCADE,
	mode           TEXT    NOT NULL CHECK (mode IN ('files', 'conversation', 'both')),
	status         TEXT    NOT NULL CHECK (status IN ('planned', 'done')),
	forced         INTEGER NOT NULL DEFAULT 0 CHECK (forced IN (0, 1)),
	plan_json      TEXT    NOT NULL,
	before_commit  TEXT,
	before_skipped TEXT    NOT NULL DEFAULT '[]',
	after_commit   TEXT,
	created_at_ms  INTEGER NOT NULL,
	finished_at_ms INTEGER,
	CHECK ((status = 'done') = (finished_at_ms IS NOT NULL))
) STRICT;
CREATE INDEX session_rewinds_session ON session_rewinds (session_id, created_at_ms);
CREATE INDEX session_rewinds_planned ON session_rewinds (created_at_ms) WHERE status = 'planned';
