package mcp

import (
	"context"
	"encoding/json"
	"os/exec"
	"slices"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hermes-gateway/hermes/internal/tools"
)

// BenchmarkCallLatency compares one echo call of the Go test server made
// directly with the SDK client against the same call through the gateway's
// path: the tools adapter (approval never) → Manager.CallMCP → the shared
// server's session. Each reports p50 and p99 in µs; the difference is what
// the gateway adds (goal: ≤ 1 ms p50).
func BenchmarkCallLatency(b *testing.B) {
	args := json.RawMessage(`{"text":"latency"}`)
	b.Run("direct", func(b *testing.B) {
		client := sdk.NewClient(&sdk.Implementation{Name: "bench"}, nil)
		cmd := exec.Command(testServer)
		cmd.Dir = b.TempDir()
		cs, err := client.Connect(context.Background(), &sdk.CommandTransport{Command: cmd}, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer cs.Close()
		measure(b, func() error {
			_, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "echo", Arguments: args})
			return err
		})
	})
	b.Run("gateway", func(b *testing.B) {
		m := New(Options{Command: bareCommand(b.TempDir())})
		defer m.Close()
		list := m.Tools(context.Background(), "bench", []Config{tsConfig()})
		var echo tools.Tool
		for _, tl := range tools.NewMCPTools(m, list) {
			if tl.Spec().Name == "mcp__ts__echo" {
				echo = tl
			}
		}
		if echo == nil {
			b.Fatal("no echo")
		}
		env := &tools.Env{}
		measure(b, func() error {
			_, err := echo.Run(context.Background(), env, args)
			return err
		})
	})
}

func measure(b *testing.B, call func() error) {
	for range 50 { // warm up
		if err := call(); err != nil {
			b.Fatal(err)
		}
	}
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		t0 := time.Now()
		if err := call(); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
}
