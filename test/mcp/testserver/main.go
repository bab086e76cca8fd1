// Command testserver is a small MCP server built with the official Go SDK
// for the process tests of test/mcp: it speaks stdio and offers tools that
// misbehave on request.
//
//	echo {text}      → text
//	add {a, b}       → a+b
//	hang {}          → writes ./hanging, blocks until cancelled, then writes ./cancelled
//	crash {}         → the process exits during the call
//	big {bytes}      → that many bytes of "x"
//	grow {}          → adds the tool "grown" (notifications/tools/list_changed)
//
// Every start appends "start <pid>" to ./starts.log (its cwd, which the
// sandbox keeps writable), so tests count processes. -garbage prints a
// line that is not JSON-RPC on stdout before serving.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type textArgs struct {
	Text string `json:"text"`
}

type addArgs struct {
	A int `json:"a"`
	B int `json:"b"`
}

type bigArgs struct {
	Bytes int `json:"bytes"`
}

type none struct{}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func main() {
	garbage := flag.Bool("garbage", false, "print a non-JSON line on stdout first")
	flag.Parse()
	f, err := os.OpenFile("starts.log", os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err == nil {
		fmt.Fprintf(f, "start %d\n", os.Getpid())
		f.Close()
	}
	if *garbage {
		fmt.Println("this is not JSON-RPC")
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "hermes-testserver", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echo the text back."},
		func(_ context.Context, _ *mcp.CallToolRequest, a textArgs) (*mcp.CallToolResult, any, error) {
			return text("echo: " + a.Text), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "add", Description: "Add two integers."},
		func(_ context.Context, _ *mcp.CallToolRequest, a addArgs) (*mcp.CallToolResult, any, error) {
			return text(fmt.Sprint(a.A + a.B)), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "hang", Description: "Never answers."},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ none) (*mcp.CallToolResult, any, error) {
			_ = os.WriteFile("hanging", []byte("hanging\n"), 0o600)
			<-ctx.Done()
			_ = os.WriteFile("cancelled", []byte("cancelled\n"), 0o600)
			return nil, nil, ctx.Err()
		})
	mcp.AddTool(s, &mcp.Tool{Name: "crash", Description: "Exits during the call."},
		func(context.Context, *mcp.CallToolRequest, none) (*mcp.CallToolResult, any, error) {
			os.Exit(3)
			return nil, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "big", Description: "A big result."},
		func(_ context.Context, _ *mcp.CallToolRequest, a bigArgs) (*mcp.CallToolResult, any, error) {
			return text(strings.Repeat("x", a.Bytes)), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "grow", Description: "Adds the tool grown."},
		func(context.Context, *mcp.CallToolRequest, none) (*mcp.CallToolResult, any, error) {
			mcp.AddTool(s, &mcp.Tool{Name: "grown", Description: "Added at run time."},
				func(context.Context, *mcp.CallToolRequest, none) (*mcp.CallToolResult, any, error) {
					return text("grown"), nil, nil
				})
			return text("grew"), nil, nil
		})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}
