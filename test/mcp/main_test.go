// Package mcp holds the process tests of MCP tools (issue 13) through the
// real hermes binary and a fake model: a real npm server
// (@modelcontextprotocol/server-everything, installed here by .ci/run's
// `npm ci`) and a small Go server built with the SDK (./testserver).
package mcp

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/hermes-gateway/hermes/internal/gatewaytest"
)

// testServer is the built ./testserver binary (TestMain).
var testServer string

func TestMain(m *testing.M) {
	// Not under /tmp: the sandbox gives a server a private /tmp.
	cache, err := os.UserCacheDir()
	if err != nil {
		panic(err)
	}
	_ = os.MkdirAll(cache, 0o700)
	dir, err := os.MkdirTemp(cache, "hermes-mcp-test-")
	if err != nil {
		panic(err)
	}
	testServer = filepath.Join(dir, "mcp-testserver")
	build := exec.Command("go", "build", "-o", testServer, "./testserver")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		panic("build ./testserver: " + err.Error())
	}
	code := gatewaytest.Main(m)
	_ = os.RemoveAll(dir)
	os.Exit(code)
}
