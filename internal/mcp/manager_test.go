package mcp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hermes-gateway/hermes/internal/protocol"
	"github.com/hermes-gateway/hermes/internal/tools"
)

func newTestManager(t *testing.T, idle time.Duration) (*Manager, string) {
	t.Helper()
	dir := t.TempDir()
	m := New(Options{Command: bareCommand(dir), IdleTimeout: idle})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return m, dir
}

func startsIn(dir string) int {
	b, _ := os.ReadFile(filepath.Join(dir, "starts.log"))
	return strings.Count(string(b), "start ")
}

func findTool(ts []tools.MCPTool, name string) (tools.MCPTool, bool) {
	for _, t := range ts {
		if t.Tool == name {
			return t, true
		}
	}
	return tools.MCPTool{}, false
}

// TestIdleStopAndRestart: a server unused for the idle timeout stops (its
// process ends) and the next call starts it again.
func TestIdleStopAndRestart(t *testing.T) {
	m, dir := newTestManager(t, 300*time.Millisecond)
	ctx := context.Background()
	list := m.Tools(ctx, "s1", []Config{tsConfig()})
	echo, ok := findTool(list, "echo")
	if !ok {
		t.Fatalf("no echo in %+v", list)
	}
	res, err := m.CallMCP(ctx, echo, json.RawMessage(`{"text":"a"}`))
	if err != nil || res.Output != "echo: a" || res.IsError {
		t.Fatalf("call: %+v %v", res, err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for m.Status()[0].State != protocol.MCPStateStopped {
		if time.Now().After(deadline) {
			t.Fatalf("not stopped after idle: %+v", m.Status())
		}
		time.Sleep(20 * time.Millisecond)
	}
	res, err = m.CallMCP(ctx, echo, json.RawMessage(`{"text":"b"}`))
	if err != nil || res.Output != "echo: b" {
		t.Fatalf("call after idle stop: %+v %v", res, err)
	}
	if n := startsIn(dir); n != 2 {
		t.Errorf("%d starts, want 2", n)
	}
}

// TestSchemaAndFilters: enabled_tools/disabled_tools filter the listing.
func TestSchemaAndFilters(t *testing.T) {
	m, _ := newTestManager(t, time.Minute)
	c := tsConfig()
	c.EnabledTools = []string{"echo", "add", "hang"}
	c.DisabledTools = []string{"hang"}
	list := m.Tools(context.Background(), "s", []Config{c})
	if len(list) != 2 {
		t.Fatalf("tools %+v, want echo and add", list)
	}
	for _, tl := range list {
		var s map[string]any
		if json.Unmarshal(tl.InputSchema, &s) != nil || s["type"] != "object" {
			t.Errorf("%s schema %s", tl.Tool, tl.InputSchema)
		}
	}
}

// TestCloseKillsGroup: Close ends the server process.
func TestCloseKillsGroup(t *testing.T) {
	dir := t.TempDir()
	m := New(Options{Command: bareCommand(dir)})
	if len(m.Tools(context.Background(), "s", []Config{tsConfig()})) == 0 {
		t.Fatal("no tools")
	}
	m.Close()
	if st := m.Status(); st[0].State != protocol.MCPStateStopped {
		t.Errorf("after Close: %+v", st)
	}
	if _, err := m.server(tsConfig()); err == nil {
		t.Error("a closed manager gave out a server")
	}
}
