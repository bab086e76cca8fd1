package session

import (
	"path/filepath"
	"testing"

	"github.com/hermes-gateway/hermes/internal/protocol"
)

// TestCheck: every restore failure of docs/protocol.md#restore-checks that needs no database.
func TestCheck(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	base := built(t, e, `{"request_id":"r","source":"gui","cwd":"{plain}"}`).Receipt
	acp := built(t, e, `{"request_id":"a","source":"acp","cwd":"{plain}","editor":{"name":"zed"}}`).Receipt
	other := built(t, e, `{"request_id":"other"}`).Receipt
	id := base.SessionID
	storage, mismatch := protocol.ReasonStorageUnavailable, protocol.ReasonProfileMismatch
	tests := []struct {
		name      string
		from      Receipt
		mutate    func(r *Receipt)
		profileID string // "" = prof-1
		keyID     string // "" = the receipt's own id
		reason    protocol.Reason
		detail    string
	}{
		{name: "valid", from: base},
		{name: "valid acp editor", from: acp},
		{name: "valid advanced", from: base, mutate: func(r *Receipt) { *r = r.Advance("c1", now).Advance("c2", now) }},
		{name: "zero receipt", from: Receipt{}, keyID: id, reason: mismatch},
		{name: "foreign profile", from: base, profileID: "prof-2", reason: mismatch},
		{name: "copied to another key", from: base, keyID: other.SessionID, reason: storage, detail: "differs from its key"},
		{name: "wrong principal", from: base, mutate: func(r *Receipt) {
			r.PrincipalID = "uid:1001"
			r.Entry.Origin.UserID = "uid:1001"
		}, reason: storage, detail: "does not derive"},
		{name: "tampered profile_id", from: base, mutate: func(r *Receipt) { r.ProfileID = "prof-2" },
			profileID: "prof-2", reason: storage, detail: "does not derive"},
		{name: "tampered request_id", from: base, mutate: func(r *Receipt) { r.RequestID = "s" }, reason: storage, detail: "does not derive"},
		{name: "empty request_id", from: base, mutate: func(r *Receipt) { r.RequestID = "" }, reason: storage, detail: "request_id"},
		{name: "empty principal", from: base, mutate: func(r *Receipt) { r.PrincipalID = "" }, reason: storage, detail: "principal_id"},
		{name: "route mismatch", from: base, mutate: func(r *Receipt) { r.Route = RouteKey(other.SessionID) }, reason: storage, detail: "route"},
		{name: "entry key mismatch", from: base, mutate: func(r *Receipt) { r.Entry.SessionKey = "agent:main:local:dm:x" }, reason: storage, detail: "session_key"},
		{name: "entry session empty", from: base, mutate: func(r *Receipt) { r.Entry.SessionID = "" }, reason: storage, detail: "entry.session_id"},
		{name: "entry platform", from: base, mutate: func(r *Receipt) { r.Entry.Platform = "telegram" }, reason: storage, detail: "entry.platform"},
		{name: "origin user", from: base, mutate: func(r *Receipt) { r.Entry.Origin.UserID = "uid:1001" }, reason: storage, detail: "origin"},
		{name: "origin chat", from: base, mutate: func(r *Receipt) { r.Entry.Origin.ChatID = other.SessionID }, reason: storage, detail: "origin"},
		{name: "origin chat_type", from: base, mutate: func(r *Receipt) { r.Entry.Origin.ChatType = "group" }, reason: storage, detail: "origin"},
		{name: "origin platform", from: base, mutate: func(r *Receipt) { r.Entry.Origin.Platform = "gui" }, reason: storage, detail: "origin"},
		{name: "timestamps", from: base, mutate: func(r *Receipt) { r.Entry.CreatedAt = "" }, reason: storage, detail: "timestamps"},
		{name: "entry yolo differs", from: base, mutate: func(r *Receipt) { r.Entry.Yolo = true }, reason: storage, detail: "yolo"},
		{name: "unknown source", from: base, mutate: func(r *Receipt) { r.Policy.Source = "telegram" }, reason: storage, detail: "source"},
		{name: "platform mismatch", from: base, mutate: func(r *Receipt) { r.Policy.Platform = "gui" }, reason: storage, detail: "platform"},
		{name: "cwd missing", from: base, mutate: func(r *Receipt) { r.Policy.Cwd = filepath.Join(e.root, "gone") }, reason: storage, detail: "cwd"},
		{name: "cwd relative", from: base, mutate: func(r *Receipt) { r.Policy.Cwd = "plain" }, reason: storage, detail: "cwd"},
		{name: "cwd unclean", from: base, mutate: func(r *Receipt) { r.Policy.Cwd = e.plain + "/" }, reason: storage, detail: "cwd"},
		{name: "model blank", from: base, mutate: func(r *Receipt) { r.Policy.Model = " " }, reason: storage, detail: "model"},
		{name: "max_turns negative", from: base, mutate: func(r *Receipt) { r.Policy.MaxTurns = -1 }, reason: storage, detail: "max_turns"},
		{name: "safe_mode alone", from: base, mutate: func(r *Receipt) { r.Policy.SafeMode = true }, reason: storage, detail: "safe_mode"},
		{name: "empty credential_ref", from: base, mutate: func(r *Receipt) { r.Policy.CredentialRef = ptr("") }, reason: storage, detail: "credential_ref"},
		{name: "toolsets nil", from: base, mutate: func(r *Receipt) { r.Policy.Toolsets = nil }, reason: storage, detail: "toolsets"},
		{name: "toolset unknown", from: base, mutate: func(r *Receipt) { r.Policy.Toolsets = []string{"web"} }, reason: storage, detail: "toolsets"},
		{name: "desktop_ui on acp", from: acp, mutate: func(r *Receipt) { r.Policy.Toolsets = []string{"desktop_ui"} }, reason: storage, detail: "desktop_ui"},
		{name: "config_json array", from: base, mutate: func(r *Receipt) { r.Policy.ConfigJSON = "[]" }, reason: storage, detail: "config_json"},
		{name: "config_json truncated", from: base, mutate: func(r *Receipt) { r.Policy.ConfigJSON = "{" }, reason: storage, detail: "config_json"},
		{name: "request_json null", from: base, mutate: func(r *Receipt) { r.Policy.RequestJSON = "null" }, reason: storage, detail: "request_json"},
		{name: "request_json other source", from: base, mutate: func(r *Receipt) { r.Policy.RequestJSON = `{"source":"cli"}` }, reason: storage, detail: "request_json"},
		{name: "terminal_json not object", from: base, mutate: func(r *Receipt) { r.Policy.TerminalJSON = `"x"` }, reason: storage, detail: "terminal_json"},
		{name: "terminal cwd differs", from: base, mutate: func(r *Receipt) { r.Policy.TerminalJSON = `{"TERMINAL_CWD":"/"}` }, reason: storage, detail: "terminal_json"},
		{name: "editor on gui", from: base, mutate: func(r *Receipt) { r.Policy.Editor = []byte(`{"name":"zed"}`) }, reason: storage, detail: "editor"},
		{name: "editor not object", from: acp, mutate: func(r *Receipt) { r.Policy.Editor = []byte(`[1]`) }, reason: storage, detail: "editor"},
		{name: "entry moved without lineage", from: base, mutate: func(r *Receipt) { r.Entry.SessionID = "c1" }, reason: storage, detail: "lineage"},
		{name: "lineage empty", from: base, mutate: func(r *Receipt) { r.Lineage = []string{} }, reason: storage, detail: "lineage is empty"},
		{name: "lineage wrong root", from: base, mutate: func(r *Receipt) {
			r.Lineage, r.Entry.SessionID = []string{"x", "c1"}, "c1"
		}, reason: storage, detail: "start"},
		{name: "lineage wrong end", from: base, mutate: func(r *Receipt) { *r = r.Advance("c1", now); r.Entry.SessionID = id }, reason: storage, detail: "end"},
		{name: "lineage repeated", from: base, mutate: func(r *Receipt) { *r = r.Advance("c1", now).Advance(id, now).Advance("c2", now) },
			reason: storage, detail: "repeated"},
		{name: "lineage empty id", from: base, mutate: func(r *Receipt) { *r = r.Advance("", now).Advance("c2", now) }, reason: storage, detail: "empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := tt.from
			r.Policy.Toolsets = append([]string{}, r.Policy.Toolsets...)
			if tt.mutate != nil {
				tt.mutate(&r)
			}
			profile, key := tt.profileID, tt.keyID
			if profile == "" {
				profile = "prof-1"
			}
			if key == "" {
				key = r.SessionID
			}
			wantErr(t, r.Check(profile, key), tt.reason, tt.detail)
		})
	}
}
