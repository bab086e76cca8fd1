package daemon

import (
	"testing"

	"go.uber.org/goleak"
)

// Every goroutine the daemon starts has an owner and a join: after all tests
// (each stops its daemon) nothing is left running.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
