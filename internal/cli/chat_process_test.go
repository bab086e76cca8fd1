package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hermes-gateway/hermes/internal/gatewaytest"
	"github.com/hermes-gateway/hermes/internal/modeltest"
	"github.com/hermes-gateway/hermes/internal/protocol"
)

func TestMain(m *testing.M) { os.Exit(gatewaytest.Main(m)) }

// run is one hermes invocation against the fixture's home.
type run struct {
	out, err string
	code     int
}

func hermes(t *testing.T, f *gatewaytest.Fixture, stdin string, args ...string) run {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, f.Bin, append([]string{"--home", f.Home}, args...)...)
	cmd.Env = gatewaytest.CleanEnv()
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := run{out: out.String(), err: errb.String()}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	case err != nil:
		t.Fatalf("hermes %v: %v", args, err)
	}
	return r
}

func streaming(t *testing.T) *gatewaytest.Fixture {
	t.Helper()
	return gatewaytest.NewFixture(t, gatewaytest.Config{Streaming: true, NoCompression: true})
}

func TestOneshotStreamsAnswer(t *testing.T) {
	t.Parallel()
	f := streaming(t)
	f.Start()
	f.Turns.Set("hello", modeltest.Reply{Text: "Hello, wide world!", Chunk: 3})
	r := hermes(t, f, "", "chat", "-q", "hello", "--no-autostart")
	if r.code != 0 || r.out != "Hello, wide world!\n" {
		t.Fatalf("code %d, stdout %q, stderr %q", r.code, r.out, r.err)
	}
}

func TestOneshotFinalOnlyPrintsLastMessage(t *testing.T) {
	t.Parallel()
	f := streaming(t)
	f.Start()
	cwd := t.TempDir()
	first := modeltest.ToolCall("terminal", gatewaytest.TerminalArgs("echo hi"))
	first.Text = "Let me look."
	f.Turns.Set("compute", first, modeltest.Reply{Text: "The answer\nis 42.", Chunk: 4})
	r := hermes(t, f, "", "chat", "-z", "compute", "--cwd", cwd)
	if r.code != 0 || r.out != "The answer\nis 42.\n" {
		t.Fatalf("-z: code %d, stdout %q, stderr %q", r.code, r.out, r.err)
	}
	r = hermes(t, f, "", "chat", "-q", "compute", "--cwd", cwd)
	if r.code != 0 || r.out != "Let me look.\nThe answer\nis 42.\n" {
		t.Fatalf("-q: code %d, stdout %q, stderr %q", r.code, r.out, r.err)
	}
	if !strings.Contains(r.err, "terminal echo hi") {
		t.Errorf("stderr does not show the tool call: %q", r.err)
	}
}

func TestOneshotReadsStdin(t *testing.T) {
	t.Parallel()
	f := streaming(t)
	f.Start()
	f.Turns.Set("from stdin\nsecond line", modeltest.Text("got it"))
	r := hermes(t, f, "from stdin\nsecond line\n", "chat", "-z", "-")
	if r.code != 0 || r.out != "got it\n" {
		t.Fatalf("code %d, stdout %q, stderr %q", r.code, r.out, r.err)
	}
}

func TestOneshotFailedTurnExits4(t *testing.T) {
	t.Parallel()
	f := streaming(t)
	f.Start()
	f.Turns.Set("break", modeltest.Reply{Status: 400})
	r := hermes(t, f, "", "chat", "-q", "break")
	if r.code != 4 || !strings.Contains(r.err, "failed") {
		t.Fatalf("code %d, stdout %q, stderr %q", r.code, r.out, r.err)
	}
}

func TestOneshotUsageAndUnavailable(t *testing.T) {
	t.Parallel()
	f := streaming(t) // no daemon
	for _, args := range [][]string{
		{"chat", "-q", "a", "-z", "b"},
		{"chat", "-q", ""},
		{"chat", "-q", "a", "stray"},
		{"chat", "--bogus"},
		{"chat", "-q", "a", "--resume", "x"},
	} {
		if r := hermes(t, f, "", args...); r.code != 2 {
			t.Errorf("%v: code %d, want 2 (stderr %q)", args, r.code, r.err)
		}
	}
	r := hermes(t, f, "", "chat", "-q", "hi", "--no-autostart")
	if r.code != 3 || !strings.Contains(r.err, "gateway") {
		t.Fatalf("--no-autostart without a daemon: code %d, stderr %q", r.code, r.err)
	}
	if _, err := os.Stat(filepath.Join(f.Home, "gateway.sock")); err == nil {
		t.Fatal("--no-autostart started a daemon")
	}
}

func TestOneshotAutostartsDaemon(t *testing.T) {
	t.Parallel()
	f := streaming(t)
	t.Cleanup(func() { hermes(t, f, "", "gateway", "stop") })
	f.Turns.Set("wake", modeltest.Text("awake"))
	r := hermes(t, f, "", "chat", "-z", "wake")
	if r.code != 0 || r.out != "awake\n" {
		t.Fatalf("code %d, stdout %q, stderr %q", r.code, r.out, r.err)
	}
	if st := hermes(t, f, "", "gateway", "status"); st.code != 0 {
		t.Fatalf("no daemon after autostart: %q", st.out)
	}
}

func TestOneshotWithoutTerminalDeniesApproval(t *testing.T) {
	t.Parallel()
	f := streaming(t)
	f.Start()
	cwd := t.TempDir()
	victim := filepath.Join(cwd, "victim")
	if err := os.Mkdir(victim, 0o700); err != nil {
		t.Fatal(err)
	}
	cmd := "rm -r -- " + victim
	f.Turns.Set("clean up", modeltest.ToolCall("terminal", gatewaytest.TerminalArgs(cmd)), modeltest.Text("could not"))
	r := hermes(t, f, "", "chat", "-q", "clean up", "--cwd", cwd)
	if r.code != 0 || r.out != "could not\n" {
		t.Fatalf("code %d, stdout %q, stderr %q", r.code, r.out, r.err)
	}
	for _, want := range []string{cmd, "--yolo", "hermes chat"} {
		if !strings.Contains(r.err, want) {
			t.Errorf("stderr lacks %q: %q", want, r.err)
		}
	}
	if _, err := os.Stat(victim); err != nil {
		t.Fatalf("the denied command ran: %v", err)
	}
}

func TestOneshotYoloRunsDangerousCommand(t *testing.T) {
	t.Parallel()
	f := streaming(t)
	f.Start()
	cwd := t.TempDir()
	victim := filepath.Join(cwd, "victim")
	if err := os.Mkdir(victim, 0o700); err != nil {
		t.Fatal(err)
	}
	f.Turns.Set("yolo clean", modeltest.ToolCall("terminal", gatewaytest.TerminalArgs("rm -r -- "+victim)), modeltest.Text("gone"))
	r := hermes(t, f, "", "chat", "-z", "yolo clean", "--cwd", cwd, "--yolo")
	if r.code != 0 || r.out != "gone\n" {
		t.Fatalf("code %d, stdout %q, stderr %q", r.code, r.out, r.err)
	}
	if _, err := os.Stat(victim); !os.IsNotExist(err) {
		t.Fatalf("--yolo did not run the command: %v", err)
	}
}

// TestOneshotSurvivesDaemonRestart kills the daemon mid-turn and starts a
// new one: the one-shot reconnects, learns that its admission is unknown,
// exits 4 naming the resolve command, which then settles it.
func TestOneshotSurvivesDaemonRestart(t *testing.T) {
	t.Parallel()
	f := streaming(t)
	f.Start()
	hold := modeltest.NewBarrier()
	t.Cleanup(hold.Release)
	f.Turns.Set("slow", modeltest.Reply{Text: "never", Hold: hold})
	done := make(chan run, 1)
	go func() { done <- hermes(t, f, "", "chat", "-q", "slow", "--no-autostart") }()
	ctx := gatewaytest.Context(t, 30*time.Second)
	if err := hold.AwaitWaiting(ctx, 1); err != nil {
		t.Fatal(err)
	}
	f.D.Kill()
	f.Start()
	r := <-done
	if r.code != 4 || !strings.Contains(r.err, "unknown") {
		t.Fatalf("code %d, stdout %q, stderr %q", r.code, r.out, r.err)
	}
	m := regexp.MustCompile("hermes sessions resolve (\\S+) ([^`\\s]+)").FindStringSubmatch(r.err)
	if m == nil {
		t.Fatalf("no resolve hint in %q", r.err)
	}
	res := hermes(t, f, "", "sessions", "resolve", m[1], m[2])
	if res.code != 0 || !strings.Contains(res.out, protocol.StatusTerminal) {
		t.Fatalf("resolve: code %d, stdout %q, stderr %q", res.code, res.out, res.err)
	}
	info := hermes(t, f, "", "sessions", "info", m[1], "--json")
	var si protocol.SessionInfo
	if err := json.Unmarshal([]byte(info.out), &si); err != nil || si.Source != "oneshot" {
		t.Fatalf("info: %v %+v (stderr %q)", err, si, info.err)
	}
}

func TestSessionsListAndInfo(t *testing.T) {
	t.Parallel()
	f := streaming(t)
	f.Start()
	if r := hermes(t, f, "", "chat", "-z", "hi", "--request-id", "listed"); r.code != 0 {
		t.Fatalf("chat: %d %q", r.code, r.err)
	}
	r := hermes(t, f, "", "sessions", "list", "--json")
	var res protocol.SessionListResult
	if err := json.Unmarshal([]byte(r.out), &res); err != nil || r.code != 0 {
		t.Fatalf("list --json: %v, code %d, %q %q", err, r.code, r.out, r.err)
	}
	if res.Scope != "live" || len(res.Sessions) != 1 || res.Sessions[0].Source != "oneshot" {
		t.Fatalf("live sessions: %+v", res)
	}
	id := res.Sessions[0].SessionID
	human := hermes(t, f, "", "sessions", "list")
	if !strings.Contains(human.out, id) || !strings.Contains(human.out, "SESSION") {
		t.Fatalf("list: %q", human.out)
	}
	info := hermes(t, f, "", "sessions", "info", id)
	if info.code != 0 || !strings.Contains(info.out, "source:    oneshot") {
		t.Fatalf("info: %d %q %q", info.code, info.out, info.err)
	}
	if r := hermes(t, f, "", "sessions", "info", "local-nope"); r.code == 0 {
		t.Fatalf("info of an unknown session succeeded: %q", r.out)
	}
	if r := hermes(t, f, "", "sessions", "frob"); r.code != 2 {
		t.Fatalf("unknown verb: code %d", r.code)
	}
}
