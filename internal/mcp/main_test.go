package mcp

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"go.uber.org/goleak"
)

// testServer is test/mcp/testserver, built by TestMain.
var testServer string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "mcp-unit-")
	if err != nil {
		panic(err)
	}
	testServer = filepath.Join(dir, "testserver")
	build := exec.Command("go", "build", "-o", testServer, "../../test/mcp/testserver")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		panic("build testserver: " + err.Error())
	}
	code := m.Run()
	_ = os.RemoveAll(dir)
	if code == 0 {
		if err := goleak.Find(); err != nil {
			println("goleak:", err.Error())
			code = 1
		}
	}
	os.Exit(code)
}

// bareCommand runs a stdio server without a sandbox, in cwd dir, leading
// its own process group (as the sandbox launcher does).
func bareCommand(dir string) func(ctx context.Context, c Config) (*exec.Cmd, error) {
	return func(ctx context.Context, c Config) (*exec.Cmd, error) {
		cmd := exec.CommandContext(ctx, c.Command, c.Args...)
		cmd.Dir = dir
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
		cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
		return cmd, nil
	}
}

func tsConfig() Config {
	return Config{Name: "ts", Source: "config", Transport: TransportStdio, Command: testServer}
}
