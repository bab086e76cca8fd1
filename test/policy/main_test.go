// Package policy holds the process-level tests of issue 10 (gateway-side
// policy) through the real hermes binary, one per item where no other
// package already covers the effect through the binary: file tools
// confined against a hostile fake model, keys bound to their endpoint,
// error hygiene of a failed compression, spoof-proof titles and one-shot
// output, the connection cap counting keep-alive HTTP connections, ticket
// pools that expire a flooder's oldest tickets, and private file modes of
// everything the daemon creates under any umask.
//
// Covered elsewhere through the binary and not repeated here: 1007 and
// duplicate envelope members, the stalled viewer and the blocked write
// (test/operator/exhaustion_test.go), the refused 1777/0770 home via
// --home and HERMES_HOME (test/lifecycle/home_test.go), the escaped
// one-shot prompt on a terminal (internal/cli/visible_process_test.go).
package policy

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	gt "github.com/hermes-gateway/hermes/internal/gatewaytest"
	"github.com/hermes-gateway/hermes/internal/modeltest"
	"github.com/hermes-gateway/hermes/internal/protocol"
)

func TestMain(m *testing.M) { os.Exit(gt.Main(m)) }

// wait bounds every wait of these tests.
const wait = 20 * time.Second

// canary is a random token that appears nowhere unless the test put it
// there (a key, a file's content, an upstream URL).
func canary(prefix string) string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return prefix + hex.EncodeToString(b)
}

// absentFromModel fails t when s appears in any request body the fake
// model received (headers are not looked at: the profile's own key is
// meant to be in its own endpoint's Authorization).
func absentFromModel(t *testing.T, m *modeltest.Server, s string) {
	t.Helper()
	reqs := m.Requests()
	if len(reqs) == 0 {
		t.Fatal("the fake model received no request")
	}
	for _, r := range reqs {
		if bytes.Contains(r.Raw, []byte(s)) {
			t.Errorf("model request %d carries %.14s…: %.400s", r.N, s, r.Raw)
		}
	}
}

// turn submits text to sid and waits for its message.complete; prompts
// answers every approval request of the turn (nil: any request fails t
// and is denied). It returns the payload of message.complete.
func turn(t *testing.T, v *gt.Recorder, sid, id, text string, prompts func(protocol.ApprovalRequestPayload) string) protocol.MessageCompletePayload {
	t.Helper()
	ctx := gt.Context(t, wait)
	seen := map[string]bool{}
	for _, ev := range v.Events() { // prompts of earlier turns
		if ev.Type == protocol.EventApprovalRequest {
			seen[gt.Payload[protocol.ApprovalRequestPayload](t, ev).PromptID] = true
		}
	}
	rc := gt.Submit(t, v, sid, id, text)
	done := gt.Completed(rc.AdmissionID)
	for {
		ev := v.Await(t, wait, func(ev protocol.Event) bool {
			if ev.SessionID != sid {
				return false
			}
			if done(ev) {
				return true
			}
			if ev.Type != protocol.EventApprovalRequest {
				return false
			}
			var p protocol.ApprovalRequestPayload
			return json.Unmarshal(ev.Payload, &p) == nil && !seen[p.PromptID]
		})
		if done(ev) {
			return gt.Payload[protocol.MessageCompletePayload](t, ev)
		}
		p := gt.Payload[protocol.ApprovalRequestPayload](t, ev)
		seen[p.PromptID] = true
		choice := protocol.ChoiceDeny
		if prompts == nil {
			t.Errorf("turn %q asked an unexpected approval: %+v", text, p)
		} else {
			choice = prompts(p)
		}
		if _, err := v.RespondApproval(ctx, protocol.ApprovalRespondParams{SessionID: sid,
			ExecutionGeneration: p.ExecutionGeneration, PromptID: p.PromptID, Choice: choice}); err != nil {
			t.Fatalf("approval.respond %s: %v", choice, err)
		}
	}
}

// toolArgs is the JSON text of a tool call's arguments.
func toolArgs(kv map[string]string) string {
	b, _ := json.Marshal(kv)
	return string(b)
}

// realDir is dir with symlinks resolved.
func realDir(t *testing.T, dir string) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// snapshotFile returns a check that path still holds exactly its bytes
// (or is still absent).
func snapshotFile(t *testing.T, path string) func() {
	t.Helper()
	before, err := os.ReadFile(path)
	missing := os.IsNotExist(err)
	if err != nil && !missing {
		t.Fatal(err)
	}
	return func() {
		t.Helper()
		after, err := os.ReadFile(path)
		switch {
		case missing && !os.IsNotExist(err):
			t.Errorf("%s was created (%q)", path, after)
		case !missing && err != nil:
			t.Errorf("%s: %v (it held %q)", path, err, before)
		case !missing && !bytes.Equal(before, after):
			t.Errorf("%s changed: %q → %q", path, before, after)
		}
	}
}
