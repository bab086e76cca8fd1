package escape

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	gt "github.com/hermes-gateway/hermes/internal/gatewaytest"
	"github.com/hermes-gateway/hermes/internal/modeltest"
	"github.com/hermes-gateway/hermes/internal/protocol"
)

// Sandbox modes (config sandbox.mode).
const (
	modeAuto   = "auto"
	modeStrict = "strict"
	modeOff    = "off"
	// modeFallback is sandbox.mode auto on a daemon that cannot create user
	// namespaces (started inside a user namespace whose
	// max_user_namespaces is 0), so the launcher falls back to level
	// landlock+seccomp: no pid or mount namespace, Landlock the only wall.
	modeFallback = "landlock-fallback"
)

// inModes runs body as one parallel subtest per sandbox mode. offReason
// is why the test is expected to fail under sandbox.mode off ("" when its
// guarantee holds without the sandbox too, so it runs there as well);
// strict runs only where this machine can build the full sandbox.
func inModes(t *testing.T, offReason string, body func(t *testing.T, mode string)) {
	t.Helper()
	inModesExcept(t, offReason, "", body)
}

// inModesExcept is inModes with a reason the test is expected to fail at
// the landlock+seccomp fallback level too ("" = it runs there).
//
// The fallback level runs in a second process: TestEscapeLandlockFallback
// re-runs this test binary inside a user namespace whose
// max_user_namespaces is 0, with fallbackEnv set; there every test runs
// only as modeFallback.
func inModesExcept(t *testing.T, offReason, fallbackReason string, body func(t *testing.T, mode string)) {
	t.Helper()
	modes := []string{modeAuto, modeStrict, modeOff}
	if insideFallback() {
		modes = []string{modeFallback}
	}
	for _, mode := range modes {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			switch {
			case mode == modeOff && offReason != "":
				t.Skip("expected to fail under sandbox.mode off, so not run there: " + offReason)
			case mode == modeFallback && fallbackReason != "":
				t.Skip("expected to fail at the landlock+seccomp fallback level, so not run there: " + fallbackReason)
			case mode == modeStrict:
				if err := fullSandboxPossible(); err != nil {
					t.Skipf("sandbox.mode strict cannot be built on this machine (no unprivileged user namespaces: %v)", err)
				}
			}
			body(t, mode)
		})
	}
}

// fallbackEnv marks the inner run of TestEscapeLandlockFallback (a HERMES_
// name, so gatewaytest keeps it from the daemons).
const fallbackEnv = "HERMES_ESCAPE_FALLBACK"

func insideFallback() bool { return os.Getenv(fallbackEnv) == "1" }

var noUserns struct {
	once sync.Once
	err  error
}

// fallbackPossible reports whether this machine can run a process tree
// that cannot create user namespaces.
func fallbackPossible() error {
	noUserns.once.Do(func() {
		out, err := exec.Command("unshare", "-Ur", "sh", "-c",
			"echo 0 > /proc/sys/user/max_user_namespaces && ! unshare -U true 2>/dev/null").CombinedOutput()
		if err != nil {
			noUserns.err = fmt.Errorf("%v: %s", err, out)
		}
	})
	return noUserns.err
}

// noUsernsCommand runs argv inside a new user namespace (the caller's uid
// mapped to 0) whose max_user_namespaces is 0.
func noUsernsCommand(argv ...string) *exec.Cmd {
	return exec.Command("unshare", append([]string{"-Ur", "sh", "-c",
		`echo 0 > /proc/sys/user/max_user_namespaces && exec "$0" "$@"`}, argv...)...)
}

// world is one daemon on a fresh profile home, its HOME a throw-away
// directory (so ~/.ssh and friends are the test's), with a recording
// viewer.
type world struct {
	t        *testing.T
	mode     string
	f        *gt.Fixture
	d        *gt.Daemon
	v        *gt.Recorder
	userHome string // the daemon's HOME
}

type worldOpts struct {
	extra    string   // raw YAML appended to config.yaml (top-level keys; not sandbox)
	sandbox  string   // raw YAML lines inside sandbox: (indented two spaces), besides mode
	env      []string // added to the daemon's environment
	cfg      gt.Config
	userHome func(t *testing.T, dir string) // fills the daemon's HOME before start
	// strictNoUserns is sandbox.mode strict in the inner run of
	// TestEscapeLandlockFallback (which must then refuse to run tools).
	strictNoUserns bool
}

func newWorld(t *testing.T, mode string, o worldOpts) *world {
	t.Helper()
	cfg := o.cfg
	cfgMode := mode
	if mode == modeFallback {
		cfgMode = modeAuto
	}
	if o.strictNoUserns {
		cfgMode = modeStrict
	}
	cfg.Extra = "sandbox:\n  mode: " + cfgMode + "\n" + o.sandbox + o.extra
	f := gt.NewFixture(t, cfg)
	home := filepath.Join(filepath.Dir(f.Home), "user")
	if err := os.Mkdir(home, 0o700); err != nil {
		t.Fatal(err)
	}
	if o.userHome != nil {
		o.userHome(t, home)
	}
	env := append([]string{"HOME=" + home}, o.env...)
	d := f.Start(env...)
	w := &world{t: t, mode: mode, f: f, d: d, userHome: home}
	w.v = d.View(gt.Context(t, wait))
	if level := w.logSandbox(); mode == modeFallback && !o.strictNoUserns && level != "landlock+seccomp" {
		t.Skipf("a daemon without user namespaces reports sandbox level %q, not the landlock+seccomp fallback", level)
	}
	return w
}

// logSandbox logs what runtime.describe says about the sandbox in force
// and returns its level ("" when not reported).
func (w *world) logSandbox() string {
	var raw json.RawMessage
	ctx, cancel := context.WithTimeout(context.Background(), gt.CallTimeout)
	defer cancel()
	if err := w.v.Call(ctx, "runtime.describe", nil, &raw); err != nil {
		w.t.Logf("runtime.describe: %v", err)
		return ""
	}
	var m struct {
		Sandbox json.RawMessage `json:"sandbox"`
	}
	_ = json.Unmarshal(raw, &m)
	var st struct {
		Level string `json:"level"`
	}
	_ = json.Unmarshal(m.Sandbox, &st)
	w.t.Logf("%s: runtime.describe sandbox %s", w.mode, m.Sandbox)
	return st.Level
}

// session creates a session in cwd; yolo sessions run dangerous commands
// without asking (yolo skips approvals, never the sandbox), which gives an
// attack every chance.
func (w *world) session(cwd string, yolo bool, extra ...func(*protocol.SessionCreateParams)) protocol.Snapshot {
	w.t.Helper()
	p := protocol.SessionCreateParams{RequestID: gt.Ptr("s-" + secret("")), Cwd: &cwd, Toolsets: &[]string{"terminal"}}
	if yolo {
		p.Yolo = gt.Ptr(true)
	}
	for _, e := range extra {
		e(&p)
	}
	return gt.Create(w.t, w.v, p)
}

// script makes prompt a turn that runs each command as its own terminal
// call, in order, then answers "<prompt>_DONE". Each command is wrapped so
// that it prints marker(prompt, i) after running: the proof it ran.
func (w *world) script(prompt string, cmds ...string) {
	replies := make([]modeltest.Reply, 0, len(cmds)+1)
	for i, c := range cmds {
		replies = append(replies, modeltest.ToolCall("terminal", gt.TerminalArgs(wrap(c, marker(prompt, i)))))
	}
	w.f.Turns.Set(prompt, append(replies, modeltest.Text(prompt+"_DONE"))...)
}

func marker(prompt string, i int) string { return fmt.Sprintf("RAN_%s_%d", prompt, i) }

// wrap runs c in a subshell (so an exit or a failure inside cannot skip
// the marker) and then prints the marker.
func wrap(c, mark string) string {
	return "( " + c + "\n) 2>&1; echo " + mark
}

// turn scripts prompt with cmds, submits it to sid and waits for it to
// complete; it fails unless every command ran (its marker is in the tool
// output). It returns the tool output.
func (w *world) turn(sid, prompt string, cmds ...string) string {
	w.t.Helper()
	w.script(prompt, cmds...)
	rc := gt.Submit(w.t, w.v, sid, prompt, prompt)
	if mc := gt.AwaitComplete(w.t, w.v, rc.AdmissionID, wait); mc.Outcome != protocol.OutcomeCompleted {
		w.t.Fatalf("turn %s: outcome %q, want completed", prompt, mc.Outcome)
	}
	return w.ran(prompt, len(cmds))
}

// ran returns the tool output of prompt's turn and fails t unless the
// markers of the first n commands are in it.
func (w *world) ran(prompt string, n int) string {
	w.t.Helper()
	out := w.toolOutput(prompt)
	w.t.Logf("tool output of %s:\n%s", prompt, out)
	for i := range n {
		if !strings.Contains(out, marker(prompt, i)) {
			w.t.Fatalf("command %d of %s never ran (no marker in the tool output), so its effect proves nothing:\n%s", i, prompt, out)
		}
	}
	return out
}

// toolOutput is every tool result the model saw in prompt's turn.
func (w *world) toolOutput(prompt string) string {
	reqs := gt.RequestsFor(w.f.Model, prompt)
	if len(reqs) == 0 {
		return ""
	}
	var b strings.Builder
	for _, m := range reqs[len(reqs)-1].ToolResults() {
		b.WriteString(m.Content)
		b.WriteString("\n")
	}
	return b.String()
}

// noSecret fails t when secret appears in the body of any request the
// fake model received (the transcript, tool results included).
func (w *world) noSecret(name, secret string) {
	w.t.Helper()
	reqs := w.f.Model.Requests()
	if len(reqs) == 0 {
		w.t.Fatal("the fake model received no request")
	}
	for _, r := range reqs {
		if bytes.Contains(r.Raw, []byte(secret)) {
			w.t.Errorf("HOLE: %s reached the model (request %d, turn %q)", name, r.N, r.LastUserText())
		}
	}
}

// pendingApproval submits a turn to sid that runs `rm -r -- dir` (a
// dangerous command) and waits until its approval.request is pending.
// It returns the prompt and the admission.
func (w *world) pendingApproval(sid, prompt, dir string) (protocol.Prompt, string) {
	w.t.Helper()
	w.f.Turns.Set(prompt, modeltest.ToolCall("terminal", gt.TerminalArgs("rm -r -- "+dir)), modeltest.Text(prompt+"_DONE"))
	rc := gt.Submit(w.t, w.v, sid, prompt, prompt)
	ev := w.v.Await(w.t, wait, func(ev protocol.Event) bool {
		return ev.SessionID == sid && ev.Type == protocol.EventApprovalRequest
	})
	p := gt.Payload[protocol.Prompt](w.t, ev)
	if !exists(dir) {
		w.t.Fatalf("%s was removed before anyone answered", dir)
	}
	return p, rc.AdmissionID
}

// stillPending fails t unless p is still among sid's prompts and dir
// still exists: nobody but the test answered.
func (w *world) stillPending(sid string, p protocol.Prompt, dir string) {
	w.t.Helper()
	snap := gt.Resume(w.t, w.v, sid)
	if !slices.ContainsFunc(snap.Prompts, func(q protocol.Prompt) bool { return q.PromptID == p.PromptID }) {
		w.t.Errorf("HOLE: the pending approval %s of session %s was answered by someone other than the test (prompts now %+v)", p.PromptID, sid, snap.Prompts)
	}
	if !exists(dir) {
		w.t.Errorf("HOLE: the dangerous command ran without the test's consent: %s is gone", dir)
	}
}

// deny answers p with deny and checks that the test's answer was the one
// that resolved it, that the turn completes and that dir survived.
func (w *world) deny(sid string, p protocol.Prompt, admission, dir string) {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), gt.CallTimeout)
	defer cancel()
	res, err := w.v.RespondApproval(ctx, protocol.ApprovalRespondParams{SessionID: sid,
		ExecutionGeneration: p.ExecutionGeneration, PromptID: p.PromptID, Choice: protocol.ChoiceDeny})
	if err != nil || res.Status != "resolved" {
		w.t.Errorf("HOLE: the test's deny of %s: %+v %v, want resolved (someone answered first)", p.PromptID, res, err)
	}
	gt.AwaitComplete(w.t, w.v, admission, wait)
	if !exists(dir) {
		w.t.Errorf("HOLE: %s is gone after the test denied its removal", dir)
	}
}

// attacker puts the attacker binary (this test binary) at dir/attack and
// the hermes binary at dir/hermes, where a sandboxed tool can see them.
func (w *world) attacker(dir string) {
	w.t.Helper()
	self, err := os.Executable()
	if err != nil {
		w.t.Fatal(err)
	}
	place(w.t, self, filepath.Join(dir, "attack"))
	place(w.t, w.f.Bin, filepath.Join(dir, "hermes"))
}

// place hard-links src to dst, or copies it when that fails.
func place(t *testing.T, src, dst string) {
	t.Helper()
	if os.Link(src, dst) == nil {
		return
	}
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// api is the daemon's API origin (a hostile model can find the port by
// scanning loopback; the tests hand it over).
func (w *world) api() string { return w.d.Identity().APIOrigin }

// attackCmd is the attacker's command line for verb (from its cwd).
func attackCmd(verb string, args ...string) string {
	return "./attack " + attackArg + " " + verb + " " + strings.Join(args, " ")
}

// awaitUnlocked waits until the test can take an exclusive flock on path:
// the process that held it (the attacker, a background child) has ended.
func awaitUnlocked(t *testing.T, path string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	defer f.Close()
	gt.Await(t, wait, func() bool {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		return err == nil || !errors.Is(err, unix.EWOULDBLOCK)
	})
}

// secret is a fresh random value with prefix.
func secret(prefix string) string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return prefix + hex.EncodeToString(b)
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// ownedDir makes <parent>/owned-removal/owned.txt and returns the directory.
func ownedDir(t *testing.T, parent string) string {
	t.Helper()
	dir := filepath.Join(parent, "owned-removal")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	gt.WriteFile(t, filepath.Join(dir, "owned.txt"), "owned")
	return dir
}

// victim is a file the tool must not change.
type victim struct {
	path string
	data []byte // nil: must stay absent
}

func newVictim(t *testing.T, path, data string) victim {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	gt.WriteFile(t, path, data)
	return victim{path: path, data: []byte(data)}
}

// absent is a path that must not come into existence.
func absent(path string) victim { return victim{path: path} }

func (v victim) check(t *testing.T) {
	t.Helper()
	b, err := os.ReadFile(v.path)
	switch {
	case v.data == nil && !exists(v.path):
	case v.data == nil:
		t.Errorf("HOLE: %s was created by the tool", v.path)
	case err != nil:
		t.Errorf("HOLE: %s is gone or unreadable after the attack: %v", v.path, err)
	case !bytes.Equal(b, v.data):
		t.Errorf("HOLE: %s was changed by the tool: %q, want %q", v.path, b, v.data)
	}
}

// interpreter is the path of a real interpreter binary (not a version
// manager's shim, which needs the user's real HOME), or "" when none.
func interpreter(name string) string {
	for _, dir := range []string{"/usr/bin", "/usr/local/bin", "/bin"} {
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode()&0o111 != 0 {
			return p
		}
	}
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	return ""
}

// shq quotes s for a POSIX shell.
func shq(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// outsideDir is a fresh directory outside every session cwd, under base
// ("" = the default temp dir), removed in t.Cleanup.
func outsideDir(t *testing.T, base string) string {
	t.Helper()
	d, err := os.MkdirTemp(base, "hgw-escape-victim")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(d) })
	d, err = filepath.EvalSymlinks(d)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

var userns struct {
	once sync.Once
	err  error
}

// fullSandboxPossible reports whether this uid can create the user, mount,
// pid and ipc namespaces the full sandbox is made of.
func fullSandboxPossible() error {
	userns.once.Do(func() {
		cmd := exec.Command("/bin/true")
		cmd.SysProcAttr = &syscall.SysProcAttr{
			Cloneflags:  syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS | syscall.CLONE_NEWPID | syscall.CLONE_NEWIPC,
			UidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getuid(), Size: 1}},
			GidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getgid(), Size: 1}},
		}
		userns.err = cmd.Run()
	})
	return userns.err
}
