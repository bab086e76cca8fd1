-- 0004: token usage per logical session (issue 14). Every model response of
-- the session's turns and of its automatic title adds to its logical row
-- (sessions.id = chat_id) in the transaction that records it; physical
-- children keep 0. Cost is not stored: it is these counts at the price
-- table of config.yaml when read. usage_cached_tokens is the part of
-- usage_prompt_tokens the server read from its prompt cache, where it said so.
ALTER TABLE sessions ADD COLUMN usage_prompt_tokens INTEGER NOT NULL DEFAULT 0 CHECK (usage_prompt_tokens >= 0);
ALTER TABLE sessions ADD COLUMN usage_completion_tokens INTEGER NOT NULL DEFAULT 0 CHECK (usage_completion_tokens >= 0);
ALTER TABLE sessions ADD COLUMN usage_cached_tokens INTEGER NOT NULL DEFAULT 0 CHECK (usage_cached_tokens >= 0);
