package mcp

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	gt "github.com/hermes-gateway/hermes/internal/gatewaytest"
	"github.com/hermes-gateway/hermes/internal/modeltest"
	"github.com/hermes-gateway/hermes/internal/protocol"
)

const wait = 60 * time.Second

// everythingJS is the npm server's entry point, or "" when npm ci did not
// run (the test then fails: it is a dependency of this suite).
func everythingJS(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs("node_modules/@modelcontextprotocol/server-everything/dist/index.js")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("server-everything is not installed (run npm ci in test/mcp): %v", err)
	}
	return p
}

// serverDir is a writable cwd for the Go test server (starts.log, cancelled).
func serverDir(t *testing.T) string {
	t.Helper()
	return gt.Cwd(t)
}

// tsYAML is an mcp_servers entry of the Go test server.
func tsYAML(name, dir, extra string) string {
	return fmt.Sprintf("  %s: {command: %q, cwd: %q%s}\n", name, testServer, dir, extra)
}

func fixture(t *testing.T, servers string, extra string) *gt.Fixture {
	t.Helper()
	return gt.NewFixture(t, gt.Config{Extra: "mcp_servers:\n" + servers + extra})
}

// starts counts the test server's starts in dir.
func starts(t *testing.T, dir string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "starts.log"))
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "start ")
}

// procsRunning counts live processes whose command line names bin.
func procsRunning(bin string) int {
	ents, _ := os.ReadDir("/proc")
	n := 0
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		cmd, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		argv := bytes.Split(cmd, []byte{0})
		for _, a := range argv {
			if string(a) == bin {
				n++
				break
			}
		}
	}
	return n
}

// toolComplete awaits the tool.complete of name.
func toolComplete(t *testing.T, v *gt.Recorder, name string) protocol.ToolCompletePayload {
	t.Helper()
	ev := v.Await(t, wait, func(ev protocol.Event) bool {
		return ev.Type == protocol.EventToolComplete && strings.Contains(string(ev.Payload), `"name":"`+name+`"`)
	})
	return gt.Payload[protocol.ToolCompletePayload](t, ev)
}

// approve answers the nth approval prompt of v (from 1) with choice and
// returns it.
func approve(t *testing.T, v *gt.Recorder, n int, sid, choice string) protocol.Prompt {
	t.Helper()
	ev := v.AwaitN(t, wait, n, func(ev protocol.Event) bool { return ev.Type == protocol.EventApprovalRequest })
	p := gt.Payload[protocol.Prompt](t, ev)
	if _, err := v.RespondApproval(gt.Context(t, wait), protocol.ApprovalRespondParams{SessionID: sid,
		ExecutionGeneration: p.ExecutionGeneration, PromptID: p.PromptID, Choice: choice}); err != nil {
		t.Fatalf("approval.respond: %v", err)
	}
	return p
}

func call(name, args string) modeltest.Reply { return modeltest.ToolCall(name, args) }

// ownCopy copies the test server to a path only this test runs.
func ownCopy(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(testServer)
	if err != nil {
		t.Fatal(err)
	}
	p := testServer + "-" + strings.NewReplacer("/", "-").Replace(t.Name())
	if err := os.WriteFile(p, b, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Remove(p) })
	return p
}
