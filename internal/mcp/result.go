package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hermes-gateway/hermes/internal/tools"
)

// maxResultBytes bounds what one result keeps before the adapter's cap
// (a server may return megabytes): the tool's output cap applies after.
const maxResultBytes = 1 << 20

// listTools lists every tool of the server (all pages) and keeps those the
// configuration offers whose input schema is a JSON Schema object; others
// are logged and left out.
func listTools(ctx context.Context, c *conn, cfg Config, key string, log *slog.Logger) ([]tools.MCPTool, error) {
	var out []tools.MCPTool
	for t, err := range c.session.Tools(ctx, nil) {
		if err != nil {
			return nil, err
		}
		if !cfg.offers(t.Name) {
			continue
		}
		schema, ok := objectSchema(t.InputSchema)
		if !ok {
			log.Warn("MCP tool left out: its input schema is not an object", "server", cfg.Name, "tool", oneLine(t.Name))
			continue
		}
		out = append(out, tools.MCPTool{Server: cfg.Name, Key: key, Tool: t.Name,
			Description: t.Description, InputSchema: schema, Ask: cfg.Ask})
	}
	return out, nil
}

// objectSchema is the schema as JSON when it is an object with type
// "object" (or no type: an object schema by default).
func objectSchema(s any) (json.RawMessage, bool) {
	b, err := json.Marshal(s)
	if err != nil {
		return nil, false
	}
	var m map[string]any
	if json.Unmarshal(b, &m) != nil || m == nil {
		return nil, false
	}
	if typ, ok := m["type"]; ok && typ != "object" {
		return nil, false
	}
	if _, ok := m["type"]; !ok {
		m["type"] = "object"
		b, _ = json.Marshal(m)
	}
	return b, true
}

// toResult renders a call's content as the model's text: text as is,
// structured content as JSON when there is no text, other content as a
// short description. isError marks the result an error.
func toResult(r *sdk.CallToolResult) tools.Result {
	var b strings.Builder
	for _, c := range r.Content {
		if b.Len() > maxResultBytes {
			break
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(contentText(c))
	}
	if b.Len() == 0 && r.StructuredContent != nil {
		js, _ := json.Marshal(r.StructuredContent)
		b.Write(js)
	}
	out := b.String()
	if len(out) > maxResultBytes {
		out = strings.ToValidUTF8(out[:maxResultBytes], "")
	}
	return tools.Result{Output: out, IsError: r.IsError}
}

func contentText(c sdk.Content) string {
	switch v := c.(type) {
	case *sdk.TextContent:
		return v.Text
	case *sdk.ImageContent:
		return fmt.Sprintf("[image %s, %d bytes]", v.MIMEType, len(v.Data))
	case *sdk.AudioContent:
		return fmt.Sprintf("[audio %s, %d bytes]", v.MIMEType, len(v.Data))
	case *sdk.ResourceLink:
		return fmt.Sprintf("[resource link %s %s]", v.Name, v.URI)
	case *sdk.EmbeddedResource:
		if v.Resource == nil {
			return "[resource]"
		}
		if v.Resource.Text != "" {
			return v.Resource.Text
		}
		return fmt.Sprintf("[resource %s %s, %d bytes]", v.Resource.URI, v.Resource.MIMEType, len(v.Resource.Blob))
	}
	js, _ := json.Marshal(c)
	return string(js)
}
