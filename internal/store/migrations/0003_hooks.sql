-- 0003: project hook consent (issue 12). A project's .hermes/hooks.yaml
-- runs only after a viewer consented to exactly that hook set in that cwd;
-- the row remembers the digest they accepted. A changed file has another
-- digest and asks again (the row is replaced when they accept it).
CREATE TABLE hook_consents (
	cwd             TEXT    PRIMARY KEY CHECK (cwd <> ''),
	digest          TEXT    NOT NULL CHECK (length(digest) = 64),
	commands_json   TEXT    NOT NULL DEFAULT '[]', -- what the prompt listed
	accepted_by     TEXT    NOT NULL,
	accepted_at_ms  INTEGER NOT NULL
) STRICT;
