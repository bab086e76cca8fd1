package daemon

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/hermes-gateway/hermes/internal/sandbox"
)

// Every goroutine the daemon starts has an owner and a join: after all tests
// (each stops its daemon) nothing is left running.
func TestMain(m *testing.M) {
	sandbox.MaybeHelper()
	goleak.VerifyTestMain(m)
}
