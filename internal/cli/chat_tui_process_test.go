package cli_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hermes-gateway/hermes/internal/gatewaytest"
	"github.com/hermes-gateway/hermes/internal/modeltest"
)

// tmuxPane runs a command in a detached tmux session on a private server.
type tmuxPane struct {
	t      *testing.T
	socket string
}

func newPane(t *testing.T, command string) *tmuxPane {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed: the terminal UI process test needs it")
	}
	p := &tmuxPane{t: t, socket: fmt.Sprintf("hermes-test-%d-%d", os.Getpid(), time.Now().UnixNano())}
	p.tmux("new-session", "-d", "-s", "chat", "-x", "100", "-y", "30", command)
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", p.socket, "kill-server").Run() })
	return p
}

func (p *tmuxPane) tmux(args ...string) string {
	p.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", p.socket}, args...)...).CombinedOutput()
	if err != nil {
		p.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func (p *tmuxPane) screen() string {
	out, err := exec.Command("tmux", "-L", p.socket, "capture-pane", "-p", "-t", "chat").CombinedOutput()
	if err != nil {
		return ""
	}
	return string(out)
}

// await waits until the screen contains s.
func (p *tmuxPane) await(s string) {
	p.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(p.screen(), s) {
		if time.Now().After(deadline) {
			p.t.Fatalf("the screen never showed %q:\n%s", s, p.screen())
		}
		_ = exec.Command("tmux", "-L", p.socket, "wait-for", "-S", "nothing").Run() // yields to the UI
	}
}

func (p *tmuxPane) send(keys ...string) {
	p.tmux(append([]string{"send-keys", "-t", "chat"}, keys...)...)
}

func TestChatTUIInTmux(t *testing.T) {
	t.Parallel()
	f := streaming(t)
	f.Start()
	cwd := t.TempDir()
	victim := filepath.Join(cwd, "victim")
	if err := os.Mkdir(victim, 0o700); err != nil {
		t.Fatal(err)
	}
	f.Turns.Set("hi tui", modeltest.Reply{Text: "Hello from the **TUI**.", Chunk: 5})
	f.Turns.Set("delete it", modeltest.ToolCall("terminal", gatewaytest.TerminalArgs("rm -r -- "+victim)), modeltest.Text("Left it alone."))
	f.Turns.Set("list it", modeltest.ToolCall("terminal", gatewaytest.TerminalArgs("printf 'alpha\\nbeta\\n'")), modeltest.Text("Listed."))
	p := newPane(t, fmt.Sprintf("%s --home %s chat --no-autostart --cwd %s", f.Bin, f.Home, cwd))
	p.await("[connected]")
	p.send("hi tui", "Enter")
	p.await("Hello from the TUI.") // markdown: the asterisks are gone once the message completes
	p.send("delete it", "Enter")
	p.await("approval needed")
	p.send("d")
	p.await("Left it alone.")
	if _, err := os.Stat(victim); err != nil {
		t.Fatalf("the denied command ran: %v", err)
	}
	f.D.Kill()
	p.await("reconnecting")
	f.Start()
	p.await("[connected]")
	if n := strings.Count(p.screen(), "Hello from the TUI."); n != 1 {
		t.Fatalf("after the reconnect the answer shows %d times:\n%s", n, p.screen())
	}
	p.await("✗ denied by the user") // rebuilt from the snapshot, whose tool results carry no error flag
	p.send("list it", "Enter")
	p.await("Listed.")
	if strings.Contains(p.screen(), "│ beta") {
		t.Fatalf("tool output is not folded:\n%s", p.screen())
	}
	p.send("C-o")
	p.await("│ beta")
	p.send("/title demo title", "Enter")
	p.await("hermes · demo title")
	p.send("/quit", "Enter")
	deadline := time.Now().Add(10 * time.Second)
	for exec.Command("tmux", "-L", p.socket, "has-session", "-t", "chat").Run() == nil {
		if time.Now().After(deadline) {
			t.Fatalf("/quit did not end the UI:\n%s", p.screen())
		}
	}
}
