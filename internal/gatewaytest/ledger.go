package gatewaytest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Ledger is the effects ledger: an append-only file that shell commands
// run by the terminal tool append one line to per real side effect, then
// fsync (sync). Tool processes get a scrubbed environment, so the path is
// written into the command text itself (Command).
type Ledger struct {
	Path string
}

// NewLedger creates an empty ledger in a new temporary directory (outside
// every session cwd), removed in t.Cleanup.
func NewLedger(t testing.TB) *Ledger {
	t.Helper()
	dir, err := os.MkdirTemp("", "hgw-ledger")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	l := &Ledger{Path: filepath.Join(dir, "effects.log")}
	WriteFile(t, l.Path, "")
	return l
}

// Command is a terminal command that appends id to the ledger and syncs.
// id must be a plain token (letters, digits, '-', '_', '.').
func (l *Ledger) Command(id string) string {
	return fmt.Sprintf("printf '%%s\\n' %s >> %s; sync", id, l.Path)
}

// TerminalArgs is the JSON arguments of a terminal tool call running cmd.
func TerminalArgs(cmd string) string {
	return fmt.Sprintf(`{"command":%s}`, q(cmd))
}

// Lines returns the ledger's lines, in order.
func (l *Ledger) Lines(t testing.TB) []string {
	t.Helper()
	b, err := os.ReadFile(l.Path)
	if err != nil {
		t.Fatal(err)
	}
	s := strings.TrimSpace(string(b))
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// Count is how many times id was recorded.
func (l *Ledger) Count(t testing.TB, id string) int {
	t.Helper()
	n := 0
	for _, line := range l.Lines(t) {
		if line == id {
			n++
		}
	}
	return n
}

// AtMostOnce fails t when any id appears more than once (I1).
func (l *Ledger) AtMostOnce(t testing.TB) {
	t.Helper()
	seen := map[string]int{}
	for _, line := range l.Lines(t) {
		seen[line]++
		if seen[line] == 2 {
			t.Errorf("I1: effect %q executed more than once (ledger %v)", line, l.Lines(t))
		}
	}
}
