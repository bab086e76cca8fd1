package policy

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	gt "github.com/hermes-gateway/hermes/internal/gatewaytest"
	"github.com/hermes-gateway/hermes/internal/modeltest"
	"github.com/hermes-gateway/hermes/internal/protocol"
)

// TestCreatedFilesPrivateUnderUmask000 (issue 10 item 7): a daemon started
// with umask 000 that has served a session, run a tool and written the
// legacy dashboard token leaves every file it created in the home 0600
// and every directory 0700 — tool-groups included. (The refusal of a 1777
// home is test/lifecycle/home_test.go.)
func TestCreatedFilesPrivateUnderUmask000(t *testing.T) {
	t.Parallel()
	f := gt.NewFixture(t, gt.Config{NoCompression: true, Extra: "dashboard:\n  legacy_token: true\n"})
	wrapper := filepath.Join(filepath.Dir(f.Home), "hermes-umask000")
	if err := os.WriteFile(wrapper, []byte("#!/bin/sh\numask 000\nexec '"+f.Bin+"' \"$@\"\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	cwd := gt.Cwd(t)
	f.Turns.Set("run a tool", modeltest.ToolCall("terminal", gt.TerminalArgs(f.Ledger.Command("ran"))), modeltest.Text("ran it"))
	d := gt.Start(t, wrapper, f.Home)
	v := d.View(gt.Context(t, wait))
	snap := gt.Create(t, v, protocol.SessionCreateParams{RequestID: gt.Ptr("modes"), Cwd: &cwd})
	if mc := turn(t, v, snap.SessionID, "m1", "run a tool", nil); mc.Outcome != protocol.OutcomeCompleted {
		t.Fatalf("turn: %q", mc.Outcome)
	}
	if f.Ledger.Count(t, "ran") != 1 {
		t.Fatal("the tool did not run")
	}
	want := []string{"state.db", "state.db-wal", "state.db-shm", "gateway.lock", "gateway.sock", "dashboard.token",
		"logs", "logs/gateway.log", "tool-groups"}
	seen := map[string]bool{}
	err := filepath.WalkDir(f.Home, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := os.Lstat(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(f.Home, path)
		if rel == "config.yaml" || rel == "." { // written by the test
			return nil
		}
		seen[rel] = true
		perm := fs.FileMode(0o600)
		if fi.IsDir() {
			perm = 0o700
		}
		if fi.Mode()&fs.ModeSymlink == 0 && fi.Mode().Perm() != perm {
			t.Errorf("%s: mode %04o under umask 000, want %04o", rel, fi.Mode().Perm(), perm)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range want {
		if !seen[name] {
			t.Errorf("%s was not created (saw %v)", name, seen)
		}
	}
	if fi, err := os.Stat(f.Home); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("the home: %v %v, want 0700", fi.Mode(), err)
	}
}
