package daemon

import (
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-gateway/hermes/internal/client"
	"github.com/hermes-gateway/hermes/internal/protocol"
)

// The legacy ?token= path is off by default; when enabled it reads
// dashboard.token (0600), refuses a forged token before the upgrade, and
// grants an operator that shares the native creator's session.
func TestLegacyTokenPath(t *testing.T) {
	t.Parallel()
	off := startTest(t, "")
	ctx := ctxT(t)
	if _, err := os.Stat(filepath.Join(off.home, "dashboard.token")); !os.IsNotExist(err) {
		t.Fatal("a legacy token exists while the path is disabled")
	}
	if _, err := client.Dial(ctx, off.identify().APIOrigin, client.Options{Query: url.Values{"token": {"x"}}}); status(err) != 401 {
		t.Fatalf("disabled path: %v", err)
	}
	d := startTest(t, "dashboard: {legacy_token: true}\n")
	path := filepath.Join(d.home, "dashboard.token")
	raw, err := os.ReadFile(path)
	if fi, _ := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("dashboard.token: %v", err)
	}
	token := strings.TrimSpace(string(raw))
	origin := d.identify().APIOrigin
	if _, err := client.Dial(ctx, origin, client.Options{Query: url.Values{"token": {"forged"}}}); status(err) != 401 {
		t.Fatalf("forged token: %v", err)
	}
	native := d.connect()
	cwd := t.TempDir()
	snap, err := native.CreateSession(ctx, protocol.SessionCreateParams{RequestID: ptr("legacy"), Cwd: &cwd})
	if err != nil {
		t.Fatal(err)
	}
	legacy, err := client.Dial(ctx, origin, client.Options{Query: url.Values{"token": {token}}})
	if err != nil {
		t.Fatal(err)
	}
	defer legacy.Close()
	if _, err := legacy.ResumeSession(ctx, protocol.SessionResumeParams{SessionID: &snap.SessionID}); err != nil {
		t.Fatalf("operator resume: %v", err)
	}
	if _, err := legacy.Submit(ctx, protocol.PromptSubmitParams{SessionID: snap.SessionID, SubmissionID: ptr("l1"), Text: "hi"}); err != nil {
		t.Fatal(err)
	}
	logs, _ := os.ReadFile(filepath.Join(d.home, "logs", "gateway.log"))
	if strings.Contains(string(logs), token) {
		t.Fatal("the legacy token reached the log")
	}
}

func status(err error) int {
	var de *client.DialError
	if errors.As(err, &de) {
		return de.Status
	}
	return 0
}
