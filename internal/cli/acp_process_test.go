package cli_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hermes-gateway/hermes/internal/gatewaytest"
	"github.com/hermes-gateway/hermes/internal/modeltest"
)

// acpSummary is what test/acp/client.mjs prints.
type acpSummary struct {
	ProtocolVersion int    `json:"protocolVersion"`
	LoadSession     bool   `json:"loadSession"`
	SessionID       string `json:"sessionId"`
	Error           string `json:"error"`
	Turns           map[string]struct {
		StopReason string           `json:"stopReason"`
		Kinds      []string         `json:"kinds"`
		Text       string           `json:"text"`
		Updates    []map[string]any `json:"updates"`
	} `json:"turns"`
	Permissions []struct {
		ToolCall struct {
			Title string `json:"title"`
		} `json:"toolCall"`
		Options []struct {
			OptionID string `json:"optionId"`
			Kind     string `json:"kind"`
		} `json:"options"`
	} `json:"permissions"`
	Loaded struct {
		Kinds []string `json:"kinds"`
		User  string   `json:"user"`
		Agent string   `json:"agent"`
	} `json:"loaded"`
}

// acpClientDir is test/acp with its node_modules installed (npm ci).
func acpClientDir(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed: the ACP client test needs node and npm (test/acp)")
	}
	root, err := gatewaytest.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "test", "acp")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@agentclientprotocol", "sdk")); err != nil {
		cmd := exec.Command("npm", "ci", "--no-audit", "--no-fund")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("npm ci in %s: %v\n%s", dir, err, out)
		}
	}
	return dir
}

func TestACPWithSDKClient(t *testing.T) {
	t.Parallel()
	dir := acpClientDir(t)
	f := gatewaytest.NewFixture(t, gatewaytest.Config{Streaming: true, NoCompression: true,
		Extra: "platform_toolsets:\n  acp: [terminal, file, clarify, todo]\n"})
	f.Start()
	cwd := t.TempDir()
	victim := filepath.Join(cwd, "victim")
	if err := os.Mkdir(victim, 0o700); err != nil {
		t.Fatal(err)
	}
	f.Turns.Set("hello acp", modeltest.Reply{Text: "Hello from hermes.", Chunk: 4})
	f.Turns.Set("use tools",
		modeltest.ToolCall("terminal", gatewaytest.TerminalArgs("echo tool-ran")),
		modeltest.ToolCall("terminal", gatewaytest.TerminalArgs("rm -r -- "+victim)),
		modeltest.Text("Tools done."))
	f.Turns.Set("make a plan",
		modeltest.ToolCall("todo", `{"todos":[{"id":"1","content":"write code","status":"in_progress"},{"id":"2","content":"test it","status":"pending"}]}`),
		modeltest.Text("Planned."))
	f.Turns.Set("never ends", modeltest.Reply{Text: "partial", NeverEnd: true})

	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "client.mjs", f.Bin, f.Home, cwd)
	cmd.Dir = dir
	cmd.Env = gatewaytest.CleanEnv()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var s acpSummary
	if jerr := json.Unmarshal(out, &s); err != nil || jerr != nil || s.Error != "" {
		t.Fatalf("node client: %v / %v\nstdout: %s\nstderr: %s", err, jerr, out, stderr.String())
	}
	checkACP(t, s, victim)
}

func checkACP(t *testing.T, s acpSummary, victim string) {
	t.Helper()
	if s.ProtocolVersion != 1 || !s.LoadSession || !strings.HasPrefix(s.SessionID, "local-") {
		t.Errorf("initialize/new: %+v", s)
	}
	hello := s.Turns["hello"]
	if hello.StopReason != "end_turn" || hello.Text != "Hello from hermes." {
		t.Errorf("hello turn: %q %q %v", hello.StopReason, hello.Text, hello.Kinds)
	}
	tools := s.Turns["tools"]
	if tools.StopReason != "end_turn" || tools.Text != "Tools done." ||
		!slices.Contains(tools.Kinds, "tool_call") || !slices.Contains(tools.Kinds, "tool_call_update") {
		t.Errorf("tools turn: %q %q %v", tools.StopReason, tools.Text, tools.Kinds)
	}
	if len(s.Permissions) != 1 || !strings.Contains(s.Permissions[0].ToolCall.Title, "rm -r") || len(s.Permissions[0].Options) != 4 {
		t.Errorf("permissions: %+v", s.Permissions)
	}
	if _, err := os.Stat(victim); err != nil {
		t.Errorf("the denied command ran: %v", err)
	}
	plan := s.Turns["plan"]
	if plan.StopReason != "end_turn" || !slices.Contains(plan.Kinds, "plan") {
		t.Errorf("plan turn: %q %v %v", plan.StopReason, plan.Kinds, plan.Updates)
	}
	if c := s.Turns["cancel"]; c.StopReason != "cancelled" {
		t.Errorf("cancel turn: %q %v", c.StopReason, c.Kinds)
	}
	if !strings.Contains(s.Loaded.User, "hello acp") || !strings.Contains(s.Loaded.Agent, "Hello from hermes.") ||
		!slices.Contains(s.Loaded.Kinds, "tool_call") {
		t.Errorf("session/load replay: %+v", s.Loaded)
	}
}
