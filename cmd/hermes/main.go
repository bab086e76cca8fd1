// Command hermes is the Hermes Gateway binary: the daemon, its clients and
// its admin verbs (see `hermes help`).
//
// It imports only cli and sandbox (the sandbox-exec helper must take over
// before anything else runs) and must never import any other internal
// package: every command lives in cli.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/hermes-gateway/hermes/internal/cli"
	"github.com/hermes-gateway/hermes/internal/sandbox"
)

func main() {
	sandbox.MaybeHelper() // `hermes sandbox-exec`: build the sandbox, exec the command, never return
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Main(ctx, os.Args[1:], cli.Stdio{In: os.Stdin, Out: os.Stdout, Err: os.Stderr})
	stop()
	os.Exit(code)
}
