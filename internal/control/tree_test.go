package control

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/hermes-gateway/hermes/internal/auth"
)

// Environment of TestHelperProcess, the client re-executed inside a
// process tree.
const (
	helperEnv       = "HERMES_CONTROL_TEST_HELPER"
	helperSocketEnv = "HERMES_CONTROL_TEST_SOCKET"
)

// TestHelperProcess is not a test: run as a child of the test binary, it
// asks for a ticket on the socket named in its environment and prints
// "OK" or "ERR: <text>".
func TestHelperProcess(t *testing.T) {
	if os.Getenv(helperEnv) != "1" {
		t.Skip("helper process only")
	}
	if os.Getenv(helperConfineEnv) == "1" {
		if err := confineLikeSandbox(); err != nil {
			fmt.Println("FAIL: confine: " + err.Error())
			os.Exit(0)
		}
	}
	err := Call(t.Context(), os.Getenv(helperSocketEnv), VerbSessionTicket, ticketParams(auth.PurposeInteractive), nil)
	var re *RemoteError
	switch {
	case err == nil:
		fmt.Println("OK")
	case errors.As(err, &re):
		fmt.Println("ERR: " + re.Text)
	default:
		fmt.Println("FAIL: " + err.Error())
	}
	os.Exit(0)
}

func helperCmd(t *testing.T, name string, args []string, socket string, extraEnv ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), helperEnv+"=1", helperSocketEnv+"="+socket)
	cmd.Env = append(cmd.Env, extraEnv...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	t.Cleanup(func() {
		if cmd.Process != nil {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		}
	})
	return cmd
}

// TestToolDescendantRefused: bash (marked as a tool process) starts the
// test binary as a grandchild of this test; its ticket request is refused,
// while this process, outside the tool tree, gets tickets.
func TestToolDescendantRefused(t *testing.T) {
	t.Parallel()
	var toolPID atomic.Int64
	_, path := startServer(t, newFakeHandler(), Options{
		IsToolProcess: func(pid int) bool { return int64(pid) == toolPID.Load() },
	})
	// bash waits for a line on stdin so the tool pid is known before the
	// grandchild connects; the trailing echo keeps bash as its parent.
	script := `read _; "$0" -test.run='^TestHelperProcess$'; echo bash-done`
	cmd := helperCmd(t, "bash", []string{"-c", script, os.Args[0]}, path)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	toolPID.Store(int64(cmd.Process.Pid))
	fmt.Fprintln(stdin)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("bash: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "ERR: refused: tool processes cannot mint tickets") {
		t.Errorf("grandchild of a tool process was not refused:\n%s", out.String())
	}
	if err := Call(t.Context(), path, VerbSessionTicket, ticketParams(auth.PurposeInteractive), nil); err != nil {
		t.Errorf("the test process itself was refused: %v", err)
	}
}

// TestToolEnvironmentRefused: a direct child carrying HERMES_TOOL_PROCESS=1
// is refused; the same child without it gets a ticket.
func TestToolEnvironmentRefused(t *testing.T) {
	t.Parallel()
	_, path := startServer(t, newFakeHandler(), Options{})
	args := []string{"-test.run=^TestHelperProcess$"}
	for _, c := range []struct {
		env  []string
		want string
	}{
		{[]string{ToolProcessEnv}, "ERR: refused: tool processes cannot mint tickets"},
		{nil, "OK"},
	} {
		out, err := helperCmd(t, os.Args[0], args, path, c.env...).CombinedOutput()
		if err != nil || !strings.Contains(string(out), c.want) {
			t.Errorf("env %v: %v\n%s\nwant %q", c.env, err, out, c.want)
		}
	}
}

// TestAncestors walks a real tree: this test → bash → sleep.
func TestAncestors(t *testing.T) {
	t.Parallel()
	cmd := helperCmd(t, "bash", []string{"-c", "sleep 30 & echo $!; wait"}, "")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); _ = cmd.Wait() }()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	sleepPID, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatal(err)
	}
	chain, err := Ancestors(sleepPID)
	if err != nil {
		t.Fatalf("Ancestors: %v", err)
	}
	if len(chain) < 3 || chain[0] != cmd.Process.Pid || chain[1] != os.Getpid() {
		t.Fatalf("Ancestors(sleep) = %v, want [bash %d, test %d, …]", chain, cmd.Process.Pid, os.Getpid())
	}
	if last := chain[len(chain)-1]; last != 1 {
		t.Logf("ancestry ends at %d (pid namespace boundary)", last)
	}
	if _, err := Ancestors(-1); err == nil {
		t.Error("Ancestors(-1) succeeded")
	}
}

func TestParseStatPPID(t *testing.T) {
	t.Parallel()
	cases := []struct {
		stat string
		want int
		ok   bool
	}{
		{"123 (bash) S 77 123 123 0 -1", 77, true},
		{"123 (a) b) (c d) R 4242 1 1", 4242, true},
		{"123 (x\n) S 9 1", 9, true},
		{"1 (init) S 0 1 1", 0, true},
		{"123 bash S 77", 0, false},
		{"123 (bash)", 0, false},
		{"123 (bash) S x", 0, false},
	}
	for _, c := range cases {
		got, err := parseStatPPID(c.stat)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("parseStatPPID(%q) = %d, %v", c.stat, got, err)
		}
	}
}

func TestCheckNotToolFailsClosed(t *testing.T) {
	t.Parallel()
	if err := checkNotTool(0, nil); err == nil {
		t.Error("unknown pid allowed")
	}
	if err := checkNotTool(os.Getpid(), func(pid int) bool { return pid == os.Getpid() }); !errors.Is(err, errToolProcess) {
		t.Errorf("peer that is itself a tool: %v", err)
	}
	if err := checkNotTool(os.Getpid(), nil); err != nil {
		t.Errorf("plain process refused: %v", err)
	}
}

func BenchmarkSessionTicket(b *testing.B) {
	h := newFakeHandler()
	_, path := startServer(b, h, Options{IsToolProcess: func(int) bool { return false }})
	params := ticketParams(auth.PurposeInteractive)
	for b.Loop() {
		var res TicketResult
		if err := Call(b.Context(), path, VerbSessionTicket, params, &res); err != nil {
			b.Fatal(err)
		}
		if _, err := h.tickets.Redeem(res.Ticket, auth.PurposeInteractive); err != nil {
			b.Fatal(err)
		}
	}
}
