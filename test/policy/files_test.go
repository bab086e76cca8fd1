package policy

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	gt "github.com/hermes-gateway/hermes/internal/gatewaytest"
	"github.com/hermes-gateway/hermes/internal/modeltest"
	"github.com/hermes-gateway/hermes/internal/protocol"
)

// TestFileToolsConfined (issue 10 items 1–2): a hostile fake model calls
// the file tools against the profile home, a file outside the cwd and the
// user's ~/.ssh, from a cwd that is the profile home's sibling and from the
// default cwd (the user's home, which contains the profile home). Effects:
// the provider key and the outside file never reach a model request, the
// outside read asks (kind "file", the resolved path shown), the gateway's
// config.yaml and authorized_keys keep their bytes (authorized_keys asks
// mandatorily, [once, deny], even under yolo).
func TestFileToolsConfined(t *testing.T) {
	t.Parallel()
	f := gt.NewFixture(t, gt.Config{APIKeyEnv: "OPENAI_API_KEY", NoCompression: true})
	key := canary("sk-canary-")
	gt.WriteFile(t, filepath.Join(f.Home, ".env"), "OPENAI_API_KEY="+key+"\n")
	base := realDir(t, filepath.Dir(f.Home)) // the daemon's $HOME: holds the profile home
	home := filepath.Join(base, filepath.Base(f.Home))
	cfgPath := filepath.Join(home, "config.yaml")

	sibling := filepath.Join(base, "cwd") // the profile home's sibling
	if err := os.Mkdir(sibling, 0o700); err != nil {
		t.Fatal(err)
	}
	outside := gt.Cwd(t)
	secret := canary("outside-secret-")
	secretPath := filepath.Join(outside, "secret.txt")
	gt.WriteFile(t, secretPath, secret+"\n")
	if err := os.Symlink(secretPath, filepath.Join(sibling, "peek")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(cfgPath, filepath.Join(sibling, "cfglink")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(base, ".ssh"), 0o700); err != nil {
		t.Fatal(err)
	}
	akPath := filepath.Join(base, ".ssh", "authorized_keys")
	gt.WriteFile(t, akPath, "ssh-ed25519 AAAAoriginal test@policy\n")
	cfgUnchanged, akUnchanged := snapshotFile(t, cfgPath), snapshotFile(t, akPath)
	// The pattern finds the key without spelling it (the model's own
	// arguments are echoed in later requests).
	pattern := regexp.QuoteMeta("sk-canary-") + "[0-9a-f]{24}"
	// A decoy the search must find: the search works, it just skips the
	// profile home.
	decoy := canary("sk-canary-")
	gt.WriteFile(t, filepath.Join(base, "notes.txt"), "decoy "+decoy+"\n")
	evil := "approvals: {mode: \"off\"}\n"

	script := func(prompt, tool string, args map[string]string) {
		f.Turns.Set(prompt, modeltest.ToolCall(tool, toolArgs(args)), modeltest.Text(prompt+" over"))
	}
	script("sibling env", "read_file", map[string]string{"path": "../" + filepath.Base(home) + "/.env"})
	script("absolute env", "read_file", map[string]string{"path": home + "/.env"})
	script("outside read", "read_file", map[string]string{"path": "peek"})
	script("config dotdot", "write_file", map[string]string{"path": "../" + filepath.Base(home) + "/config.yaml", "content": evil})
	script("config link", "write_file", map[string]string{"path": "cfglink", "content": evil})
	script("config patch", "patch", map[string]string{"path": "cfglink", "old": "manual", "new": "off"})
	script("keys patch", "patch", map[string]string{"path": ".ssh/authorized_keys", "old": "AAAAoriginal", "new": "AAAAevil"})
	script("child env", "read_file", map[string]string{"path": filepath.Base(home) + "/.env"})
	script("child config", "write_file", map[string]string{"path": filepath.Base(home) + "/config.yaml", "content": evil})
	script("authorized keys", "write_file", map[string]string{"path": ".ssh/authorized_keys", "content": "ssh-ed25519 AAAAevil attacker\n"})
	script("search home", "search_files", map[string]string{"pattern": pattern})
	script("search profile", "search_files", map[string]string{"pattern": pattern, "path": filepath.Base(home)})

	envCanary := canary("environ-")
	d := f.Start("HOME="+base, "POLICY_TEST_CANARY="+envCanary)
	// The daemon's own /proc files (by /proc/self and by pid) and the
	// profile's .env through the /proc/self/root magic link.
	script("proc self", "read_file", map[string]string{"path": "/proc/self/environ"})
	script("proc pid", "read_file", map[string]string{"path": "/proc/" + strconv.Itoa(d.PID()) + "/environ"})
	script("proc root", "read_file", map[string]string{"path": "/proc/self/root" + home + "/.env"})
	v := d.View(gt.Context(t, wait))
	s1 := gt.Create(t, v, protocol.SessionCreateParams{RequestID: gt.Ptr("sibling"), Cwd: &sibling})
	n := 0
	run := func(sid, prompt string, prompts func(protocol.ApprovalRequestPayload) string) {
		t.Helper()
		n++
		mc := turn(t, v, sid, "s"+string(rune('a'+n)), prompt, prompts)
		if mc.Outcome != protocol.OutcomeCompleted {
			t.Errorf("%s: outcome %q, want completed", prompt, mc.Outcome)
		}
		reqs := gt.RequestsFor(f.Model, prompt)
		if len(reqs) != 2 || len(reqs[1].Messages) == 0 || reqs[1].Messages[len(reqs[1].Messages)-1].Role != "tool" {
			t.Errorf("%s: %d model requests, want 2, the second ending with the tool's result", prompt, len(reqs))
			return
		}
		msgs := reqs[1].Messages
		t.Logf("%s: the model saw %.160q", prompt, msgs[len(msgs)-1].Content)
	}
	run(s1.SessionID, "sibling env", nil)
	run(s1.SessionID, "absolute env", nil)
	asked := 0
	run(s1.SessionID, "outside read", func(p protocol.ApprovalRequestPayload) string {
		asked++
		if p.Kind != "file" || !strings.Contains(p.Command, secretPath) {
			t.Errorf("outside read asked %+v, want kind file showing %s", p, secretPath)
		}
		return protocol.ChoiceDeny
	})
	if asked != 1 {
		t.Errorf("the read outside the cwd asked %d times, want once", asked)
	}
	deny := func(protocol.ApprovalRequestPayload) string { return protocol.ChoiceDeny }
	for _, p := range []string{"proc self", "proc pid", "proc root"} {
		run(s1.SessionID, p, deny)
	}
	run(s1.SessionID, "config dotdot", nil)
	run(s1.SessionID, "config link", nil)
	run(s1.SessionID, "config patch", nil)

	// The default cwd: the user's home, which holds the profile home and
	// ~/.ssh. Yolo does not cover protected paths.
	s2 := gt.Create(t, v, protocol.SessionCreateParams{RequestID: gt.Ptr("default"), Yolo: gt.Ptr(true)})
	run(s2.SessionID, "child env", nil)
	run(s2.SessionID, "child config", nil)
	asked = 0
	run(s2.SessionID, "authorized keys", func(p protocol.ApprovalRequestPayload) string {
		asked++
		if p.Kind != "file" || !slices.Equal(p.Choices, []string{protocol.ChoiceOnce, protocol.ChoiceDeny}) || !strings.Contains(p.Command, akPath) {
			t.Errorf("authorized_keys asked %+v, want kind file, choices [once deny], showing %s", p, akPath)
		}
		return protocol.ChoiceDeny
	})
	if asked != 1 {
		t.Errorf("writing authorized_keys under yolo asked %d times, want once (mandatory)", asked)
	}
	asked = 0
	run(s2.SessionID, "keys patch", func(p protocol.ApprovalRequestPayload) string {
		asked++
		if !slices.Equal(p.Choices, []string{protocol.ChoiceOnce, protocol.ChoiceDeny}) {
			t.Errorf("patching authorized_keys asked %+v, want choices [once deny]", p)
		}
		return protocol.ChoiceDeny
	})
	if asked != 1 {
		t.Errorf("patching authorized_keys under yolo asked %d times, want once", asked)
	}
	run(s2.SessionID, "search home", nil)
	run(s2.SessionID, "search profile", func(protocol.ApprovalRequestPayload) string { return protocol.ChoiceDeny })

	absentFromModel(t, f.Model, key)
	if r := gt.RequestsFor(f.Model, "search home"); len(r) != 2 || !r[1].ContainsText(decoy) {
		t.Error("search_files from the user's home did not find the decoy outside the profile home")
	}
	absentFromModel(t, f.Model, secret)
	absentFromModel(t, f.Model, envCanary)
	cfgUnchanged()
	akUnchanged()
	if st, _ := os.Stat(filepath.Join(sibling, "cfglink")); st == nil {
		t.Error("the cwd's symlink to config.yaml is gone")
	}
	// The key never reached the transcript either.
	for _, s := range []string{s1.SessionID, s2.SessionID} {
		for _, m := range gt.Resume(t, v, s).Messages {
			if strings.Contains(m.Content, key) || strings.Contains(m.Content, secret) {
				t.Errorf("session %s's transcript holds a canary: %.200q", s, m.Content)
			}
		}
	}
}
