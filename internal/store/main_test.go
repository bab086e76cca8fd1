package store_test

import (
	"testing"

	"go.uber.org/goleak"
)

// Close must release every goroutine database/sql started for both pools.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
