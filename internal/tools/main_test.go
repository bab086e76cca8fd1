package tools

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain checks that no tool leaves a goroutine behind (the terminal
// tool's exec copiers and wait goroutines must all be joined).
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
