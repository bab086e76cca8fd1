// Package session is the pure launch policy of gateway-owned local
// sessions: validation of session.create, toolset folding, the logical id
// and route, the creation receipt, its restore checks and the lineage rules
// (docs/protocol.md#session-create, #receipt, #restore-checks, #toolsets). It imports only protocol,
// ids and strictjson, holds no state, runs no SQL and no network; it reads
// the filesystem only to check a cwd, detect a code workspace and render
// skills.
//
// It must never import store, tools or authority: the store keeps the
// receipt and policy JSON built and checked here, and tools get what they
// need through tools.Env, so the pure policy stays a leaf next to protocol.
//
// Identity:
//   - logical id = "local-" + hex sha256 of the compact JSON array
//     [profile_id, subject, request_id] (LogicalID); it never changes and is
//     the id clients use for ever (session_id == stored_session_id).
//   - route = "agent:main:local:dm:" + logical id (RouteKey); the origin is
//     always the server-owned LOCAL dm identity {local, id, subject, dm} —
//     the source never grants any other routing trust.
//   - the receipt lives in state_meta under "gateway.local_policy.v1:" + id.
//
// What is frozen (Build, once, at creation): source and platform, cwd
// (cleaned, symlinks kept), model, provider, base_url, max_turns,
// reasoning, streaming, the effective toolsets (sorted) and whether the
// coding posture applied, the config snapshot (config_json), the frozen
// request (request_json), the terminal scope (terminal_json, TERMINAL_CWD =
// cwd), the launch flags, title/hidden, the rendered skills, the acp
// editor and the sandbox settings (mode, network, writable roots, hidden
// paths; absent in older receipts, which follow the profile's current
// settings). Nothing that happens later — attach, resume, config edits —
// changes a receipt's policy; only Advance rewrites entry.session_id,
// entry.updated_at and lineage.
//
// Secrets: the launch api_key is returned only in Launch.APIKey. The
// receipt holds CredentialRef ("launch:" + 16 hex of its sha256) so a
// re-supplied key can be matched; request_json never holds api_key or
// request_id; error details never repeat an api_key or base_url.
//
// Receipt invariants (Check, docs/protocol.md#restore-checks): profile_id is the serving
// profile (else profile_mismatch); session_id == the key's id ==
// LogicalID(profile_id, principal_id, request_id); route == RouteKey(id) ==
// entry.session_key; entry.origin is the LOCAL dm origin of (id,
// principal); the policy is restorable (known source with its platform,
// existing absolute cwd, non-blank model, known toolsets, safe_mode ⇒
// ignore_user_config, config/request/terminal JSON are objects, the
// terminal scope names the cwd). Any failure but the profile is
// storage_unavailable: the session is not restored and its inputs stay
// queued.
//
// Lineage rules (CheckLineage): the lineage is absent until the first
// compression or reset (absent = [id]); otherwise it is non-empty, unique,
// starts at the logical id and ends at entry.session_id. Each step
// parent→child has child.parent_session_id == parent and either parent
// ended session_reset with child model_config._reset_from == parent, or
// parent ended compression and the child is not a reset, branch or
// delegate child. The tip row carries (chat_id, user_id, session_key) ==
// (id, principal, route) and has not ended by compression or reset. So an
// unrelated fork, or a receipt copied onto one, never restores.
//
// Toolset folding is documented on folding (fold.go); in short: explicit
// toolsets override the defaults but may only ask for tools this profile,
// source and cwd would get by default; cli ⊆ tui ⊆ gui.
package session
