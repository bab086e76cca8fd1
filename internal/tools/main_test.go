package tools

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/hermes-gateway/hermes/internal/sandbox"
)

// TestMain checks that no tool leaves a goroutine behind (the terminal
// tool's exec copiers and wait goroutines must all be joined). The test
// binary doubles as the sandbox helper the launcher re-executes.
func TestMain(m *testing.M) {
	sandbox.MaybeHelper()
	goleak.VerifyTestMain(m)
}
