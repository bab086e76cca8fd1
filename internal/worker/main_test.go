package worker

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"testing"

	"go.uber.org/goleak"

	"github.com/hermes-gateway/hermes/internal/sandbox"
)

// helperArg makes the test binary act as a misbehaving worker (argv
// {test binary, helperArg, mode}); the environment is fresh, so the mode
// travels in argv.
const helperArg = "worker-helper"

func TestMain(m *testing.M) {
	sandbox.MaybeHelper()
	if len(os.Args) == 3 && os.Args[1] == helperArg {
		os.Exit(helperWorker(os.Args[2]))
	}
	goleak.VerifyTestMain(m, goleak.Cleanup(func(code int) {
		removeBinary()
		os.Exit(code)
	}))
}

// helperWorker reads the spec line, then misbehaves as mode says.
func helperWorker(mode string) int {
	in := bufio.NewReader(os.Stdin)
	if _, err := in.ReadString('\n'); err != nil {
		return 9
	}
	switch mode {
	case "garbage": // not a frame; then waits for stdin EOF
		fmt.Println("this is not a frame")
		_, _ = io.Copy(io.Discard, in)
	case "die": // no result, a reason on stderr
		fmt.Fprintln(os.Stderr, "helper: boom")
		return 3
	case "deaf": // ignores cancel and stdin EOF
		_, _ = io.Copy(io.Discard, in)
		blockForever()
	case "linger": // a result, then never exits
		fmt.Println(`{"kind":"result","result":{"text":"fine","outcome":"completed","rounds":1}}`)
		_, _ = io.Copy(io.Discard, in)
		blockForever()
	}
	return 0
}

// blockForever blocks without tripping the deadlock detector (os/signal
// keeps a goroutine of the runtime waiting).
func blockForever() {
	c := make(chan os.Signal, 1)
	signal.Notify(c, syscall.SIGUSR1)
	<-c
}
