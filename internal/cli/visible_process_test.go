package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/hermes-gateway/hermes/internal/gatewaytest"
	"github.com/hermes-gateway/hermes/internal/modeltest"
)

// spoofCommand is the JSON arguments of a dangerous terminal call that
// tries to erase its own line on the terminal and show a harmless one.
func spoofCommand(victim string) string {
	b, _ := json.Marshal(map[string]string{"command": "rm -r -- " + victim + " #\x1b[2K\r\x1b[1Aecho harmless\u202e"})
	return string(b)
}

// TestOneshotApprovalPromptIsEscaped (issue 10 item 5): `hermes chat -q` on
// a terminal shows the approval prompt with the command's escape bytes,
// carriage returns and bidi controls escaped; nothing raw reaches the tty.
func TestOneshotApprovalPromptIsEscaped(t *testing.T) {
	t.Parallel()
	f := streaming(t)
	f.Start()
	cwd := t.TempDir()
	victim := filepath.Join(cwd, "victim")
	if err := os.Mkdir(victim, 0o700); err != nil {
		t.Fatal(err)
	}
	f.Turns.Set("spoof", modeltest.ToolCall("terminal", spoofCommand(victim)), modeltest.Text("denied\x1b[2K, fine"))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, f.Bin, "--home", f.Home, "chat", "-q", "spoof", "--cwd", cwd)
	cmd.Env = gatewaytest.CleanEnv()
	tty, err := pty.Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	defer tty.Close()
	var mu sync.Mutex
	var out bytes.Buffer
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 4096)
		for {
			n, err := tty.Read(buf)
			mu.Lock()
			out.Write(buf[:n])
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	awaitOutput(t, ctx, &mu, &out, "]eny? ")
	if _, err := io.WriteString(tty, "d\n"); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("hermes: %v\n%q", err, snapshotOutput(&mu, &out))
	}
	_ = tty.Close()
	<-done
	got := snapshotOutput(&mu, &out)
	clean := strings.ReplaceAll(got, "\r\n", "\n") // the tty's own ONLCR
	for _, raw := range []string{"\x1b", "\r", "\u202e"} {
		if strings.Contains(clean, raw) {
			t.Errorf("the terminal received a raw %q:\n%q", raw, got)
		}
	}
	if !strings.Contains(got, `#\x1b[2K\r\x1b[1Aecho harmless\u202e`) {
		t.Errorf("the prompt does not show the command escaped:\n%q", got)
	}
	if !strings.Contains(got, `denied\x1b[2K, fine`) {
		t.Errorf("the answer is not shown escaped on the terminal:\n%q", got)
	}
	if _, err := os.Stat(victim); err != nil {
		t.Fatalf("the denied command ran: %v", err)
	}
}

// TestOneshotRefusalIsEscaped: without a terminal the refusal on stderr
// names the command escaped too.
func TestOneshotRefusalIsEscaped(t *testing.T) {
	t.Parallel()
	f := streaming(t)
	f.Start()
	cwd := t.TempDir()
	victim := filepath.Join(cwd, "victim")
	if err := os.Mkdir(victim, 0o700); err != nil {
		t.Fatal(err)
	}
	f.Turns.Set("spoof", modeltest.ToolCall("terminal", spoofCommand(victim)), modeltest.Text("denied\x1b[2K"))
	r := hermes(t, f, "", "chat", "-q", "spoof", "--cwd", cwd)
	if r.code != 0 || !strings.Contains(r.err, "refused") {
		t.Fatalf("code %d, stdout %q, stderr %q", r.code, r.out, r.err)
	}
	for _, raw := range []string{"\x1b", "\r", "\u202e"} {
		if strings.Contains(r.err, raw) {
			t.Errorf("stderr holds a raw %q: %q", raw, r.err)
		}
	}
}

func awaitOutput(t *testing.T, ctx context.Context, mu *sync.Mutex, out *bytes.Buffer, want string) {
	t.Helper()
	for !strings.Contains(snapshotOutput(mu, out), want) {
		select {
		case <-ctx.Done():
			t.Fatalf("no %q on the terminal:\n%q", want, snapshotOutput(mu, out))
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func snapshotOutput(mu *sync.Mutex, out *bytes.Buffer) string {
	mu.Lock()
	defer mu.Unlock()
	return out.String()
}
