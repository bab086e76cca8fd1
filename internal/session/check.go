package session

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/hermes-gateway/hermes/internal/protocol"
)

// Check runs the restore validation of docs/protocol.md#restore-checks that needs no database.
// profileID is the serving profile, logicalID the id of the state_meta key
// the receipt was read from. A receipt of another profile is
// profile_mismatch; every other failure is storage_unavailable (the session
// fails closed: not restored, its inputs stay queued). Details name what
// failed, never a secret or a physical transcript id.
func (r Receipt) Check(profileID, logicalID string) error {
	if r.ProfileID != profileID {
		return protocol.Errorf(protocol.ReasonProfileMismatch, "receipt belongs to another profile")
	}
	for _, check := range []func(Receipt, string) error{
		checkIdentity, checkEntry, checkPolicy, checkPolicyJSON, checkLineageShape,
	} {
		if err := check(r, logicalID); err != nil {
			return err
		}
	}
	return nil
}

// checkIdentity: the key's id is the receipt's id, which derives from
// (profile, principal, request) — so a copied or relabelled receipt fails.
func checkIdentity(r Receipt, logicalID string) error {
	switch {
	case r.PrincipalID == "":
		return storageErr("receipt: principal_id is empty")
	case !validRequestID(r.RequestID):
		return storageErr("receipt: request_id is invalid")
	case r.SessionID != logicalID:
		return storageErr("receipt: session_id differs from its key")
	case LogicalID(r.ProfileID, r.PrincipalID, r.RequestID) != r.SessionID:
		return storageErr("receipt: session_id does not derive from profile, principal and request")
	case r.Route != RouteKey(r.SessionID):
		return storageErr("receipt: route does not match the session id")
	}
	return nil
}

func checkEntry(r Receipt, _ string) error {
	e := r.Entry
	switch {
	case e.SessionKey != r.Route:
		return storageErr("receipt: entry.session_key differs from the route")
	case e.SessionID == "":
		return storageErr("receipt: entry.session_id is empty")
	case e.Platform != "local":
		return storageErr("receipt: entry.platform is not local")
	case e.Origin != localOrigin(r.SessionID, r.PrincipalID):
		return storageErr("receipt: entry.origin does not match the session")
	case e.CreatedAt == "" || e.UpdatedAt == "":
		return storageErr("receipt: entry timestamps are empty")
	case e.Yolo != r.Policy.Yolo:
		return storageErr("receipt: entry.yolo differs from policy.yolo")
	}
	return nil
}

func checkPolicy(r Receipt, _ string) error {
	p := r.Policy
	platform, known := SourcePlatform[p.Source]
	switch {
	case !known:
		return storageErr("receipt: policy.source is unknown")
	case p.Platform != platform:
		return storageErr("receipt: policy.platform does not match the source")
	case !existingAbsDir(p.Cwd):
		return storageErr("receipt: policy.cwd is not an existing absolute directory")
	case blank(p.Model):
		return storageErr("receipt: policy.model is empty")
	case p.MaxTurns < 0:
		return storageErr("receipt: policy.max_turns is negative")
	case p.SafeMode && !p.IgnoreUserConfig:
		return storageErr("receipt: policy.safe_mode without ignore_user_config")
	case p.CredentialRef != nil && *p.CredentialRef == "":
		return storageErr("receipt: policy.credential_ref is empty")
	}
	if err := checkSandbox(p.Sandbox); err != nil {
		return err
	}
	return checkPolicyToolsets(p)
}

func checkPolicyToolsets(p Policy) error {
	if p.Toolsets == nil {
		return storageErr("receipt: policy.toolsets is missing")
	}
	for _, n := range p.Toolsets {
		if strings.HasPrefix(n, ToolsetMCPPrefix) {
			continue // checkPolicyMCP
		}
		if Toolsets[n] == nil {
			return storageErr("receipt: policy.toolsets names an unknown toolset")
		}
		if n == ToolsetDesktopUI && p.Source != "gui" {
			return storageErr("receipt: policy.toolsets has desktop_ui without source gui")
		}
	}
	return checkPolicyMCP(p)
}

// checkPolicyJSON: the frozen JSON members decode to objects, the terminal
// scope names the frozen cwd, the frozen request names the frozen source.
func checkPolicyJSON(r Receipt, _ string) error {
	p := r.Policy
	if _, ok := decodeObject(p.ConfigJSON); !ok {
		return storageErr("receipt: policy.config_json is not an object")
	}
	req, ok := decodeObject(p.RequestJSON)
	if !ok || req["source"] != p.Source {
		return storageErr("receipt: policy.request_json is not a request of this source")
	}
	term, ok := decodeObject(p.TerminalJSON)
	if !ok || term[terminalCwdKey] != p.Cwd {
		return storageErr("receipt: policy.terminal_json does not name the cwd")
	}
	if len(p.Editor) > 0 && string(p.Editor) != "null" {
		if _, ok := decodeObject(string(p.Editor)); !ok || p.Source != "acp" {
			return storageErr("receipt: policy.editor is not an acp editor object")
		}
	}
	return nil
}

func decodeObject(s string) (map[string]any, bool) {
	var m map[string]any
	if json.Unmarshal([]byte(s), &m) != nil || m == nil {
		return nil, false
	}
	return m, true
}

func existingAbsDir(p string) bool {
	if !filepath.IsAbs(p) || filepath.Clean(p) != p {
		return false
	}
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}
