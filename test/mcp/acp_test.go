package mcp

import (
	"bufio"
	"encoding/json"
	"os/exec"
	"strings"
	"sync"
	"testing"

	gt "github.com/hermes-gateway/hermes/internal/gatewaytest"
	"github.com/hermes-gateway/hermes/internal/modeltest"
)

// acpPeer drives `hermes acp` over newline-delimited JSON-RPC: it answers
// every session/request_permission with "once" and collects replies.
type acpPeer struct {
	t   *testing.T
	enc *json.Encoder

	mu      sync.Mutex
	replies map[int]json.RawMessage // guarded by mu
	perms   []json.RawMessage       // guarded by mu: request_permission params
	changed chan struct{}           // guarded by mu
}

func startACP(t *testing.T, f *gt.Fixture) *acpPeer {
	t.Helper()
	cmd := exec.Command(f.Bin, "--home", f.Home, "acp", "--no-autostart")
	cmd.Env = gt.CleanEnv()
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &acpPeer{t: t, enc: json.NewEncoder(in), replies: map[int]json.RawMessage{}, changed: make(chan struct{})}
	go p.read(bufio.NewScanner(out))
	t.Cleanup(func() {
		_ = in.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	return p
}

func (p *acpPeer) read(sc *bufio.Scanner) {
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		var m struct {
			ID     *json.RawMessage `json:"id"`
			Method string           `json:"method"`
			Params json.RawMessage  `json:"params"`
			Result json.RawMessage  `json:"result"`
			Error  json.RawMessage  `json:"error"`
		}
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			continue
		}
		p.mu.Lock()
		switch {
		case m.Method == "session/request_permission" && m.ID != nil:
			p.perms = append(p.perms, m.Params)
			_ = p.enc.Encode(map[string]any{"jsonrpc": "2.0", "id": m.ID,
				"result": map[string]any{"outcome": map[string]string{"outcome": "selected", "optionId": "once"}}})
		case m.Method == "" && m.ID != nil:
			var id int
			_ = json.Unmarshal(*m.ID, &id)
			if m.Error != nil {
				p.replies[id] = m.Error
			} else {
				p.replies[id] = m.Result
			}
		}
		close(p.changed)
		p.changed = make(chan struct{})
		p.mu.Unlock()
	}
}

// request sends a request and waits for its reply.
func (p *acpPeer) request(id int, method string, params any) json.RawMessage {
	p.t.Helper()
	p.mu.Lock()
	_ = p.enc.Encode(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	p.mu.Unlock()
	var out json.RawMessage
	gt.Await(p.t, wait, func() bool {
		p.mu.Lock()
		defer p.mu.Unlock()
		out = p.replies[id]
		return out != nil
	})
	return out
}

// TestACPEditorServers: an ACP editor's mcpServers at session/new become
// the session's tools (frozen in its receipt), with the editor's
// permission asked for each call.
func TestACPEditorServers(t *testing.T) {
	t.Parallel()
	f := gt.NewFixture(t, gt.Config{})
	f.Turns.Set("editor tools", call("mcp__edts__add", `{"a":20,"b":22}`), modeltest.Text("EDITOR_DONE"))
	f.Start()
	cwd := gt.Cwd(t)
	p := startACP(t, f)
	p.request(1, "initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}})
	res := p.request(2, "session/new", map[string]any{"cwd": cwd, "mcpServers": []map[string]any{
		{"name": "edts", "command": testServer, "args": []string{}, "env": []map[string]string{{"name": "EDITOR_FLAG", "value": "1"}}},
	}})
	var sn struct {
		SessionID string `json:"sessionId"`
	}
	if json.Unmarshal(res, &sn) != nil || sn.SessionID == "" {
		t.Fatalf("session/new: %s", res)
	}
	res = p.request(3, "session/prompt", map[string]any{"sessionId": sn.SessionID,
		"prompt": []map[string]string{{"type": "text", "text": "editor tools"}}})
	if !strings.Contains(string(res), "end_turn") {
		t.Fatalf("session/prompt: %s", res)
	}
	reqs := gt.RequestsFor(f.Model, "editor tools")
	if len(reqs) != 2 || !reqs[0].HasTool("mcp__edts__add") {
		t.Fatalf("the editor's server was not offered (%d requests)", len(reqs))
	}
	if r := reqs[1].ToolResults(); len(r) != 1 || r[0].Content != "42" {
		t.Errorf("add result %+v", r)
	}
	p.mu.Lock()
	perms := len(p.perms)
	p.mu.Unlock()
	if perms != 1 {
		t.Errorf("%d permission requests, want 1 (editor servers ask)", perms)
	}
	// The receipt froze the server.
	db := gt.OpenDB(t, f.Home)
	if raw, ok := gt.Meta(t, db, "gateway.local_policy.v1:"+sn.SessionID); !ok || !strings.Contains(raw, `"mcp":[{`) || !strings.Contains(raw, `"source":"editor"`) {
		t.Errorf("receipt lacks policy.mcp: %s", raw)
	}
}
