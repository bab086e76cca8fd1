package mcp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	gt "github.com/hermes-gateway/hermes/internal/gatewaytest"
	"github.com/hermes-gateway/hermes/internal/modeltest"
	"github.com/hermes-gateway/hermes/internal/protocol"
)

// TestHTTPServerBearerFromDotEnv: a streamable HTTP server gets the bearer
// token named by bearer_token_env from .env on every request, and the
// token is nowhere at rest but .env.
func TestHTTPServerBearerFromDotEnv(t *testing.T) {
	t.Parallel()
	const token = "mcp-bearer-0123456789-abcdefghij"
	srv := sdk.NewServer(&sdk.Implementation{Name: "http-test", Version: "1"}, nil)
	sdk.AddTool(srv, &sdk.Tool{Name: "whoami", Description: "Answers."},
		func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "http ok"}}}, nil, nil
		})
	var refused atomic.Int64
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+token || r.Header.Get("X-Team") != "core" {
			refused.Add(1)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close)
	f := fixture(t, `  web: {url: "`+hs.URL+`/mcp", headers: {X-Team: core}, bearer_token_env: WEB_MCP_TOKEN, approval: never}`+"\n", "")
	gt.WriteFile(t, filepath.Join(f.Home, ".env"), "WEB_MCP_TOKEN="+token+"\n")
	f.Turns.Set("over http", call("mcp__web__whoami", `{}`), modeltest.Text("HTTP_DONE"))
	d := f.Start()
	ctx := gt.Context(t, wait)
	v := d.View(ctx)
	snap := gt.Create(t, v, protocol.SessionCreateParams{RequestID: gt.Ptr("http"), Cwd: gt.Ptr(gt.Cwd(t))})
	rc := gt.Submit(t, v, snap.SessionID, "s1", "over http")
	if mc := gt.AwaitComplete(t, v, rc.AdmissionID, wait); mc.Text != "HTTP_DONE" {
		t.Fatalf("turn %+v", mc)
	}
	if res := gt.RequestsFor(f.Model, "over http")[1].ToolResults(); len(res) != 1 || res[0].Content != "http ok" {
		t.Errorf("whoami result %+v", res)
	}
	if n := refused.Load(); n != 0 {
		t.Errorf("%d requests without the bearer token or header", n)
	}
	st, _ := v.MCPStatus(ctx)
	if len(st.Servers) != 1 || st.Servers[0].Transport != "http" || st.Servers[0].State != protocol.MCPStateReady {
		t.Errorf("mcp.status %+v", st)
	}
	if strings.Contains(strings.Join([]string{st.Servers[0].Error}, ""), token) {
		t.Error("status carries the token")
	}
	_ = v.Close()
	d.Stop()
	gt.NoSecretAtRest(t, f.Home, token)
}
