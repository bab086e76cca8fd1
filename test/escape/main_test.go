// Package escape is the tool-sandbox escape suite of issue 9: one test per
// attack class, through the real hermes binary and a hostile fake model
// that issues whatever terminal calls it likes. Each test asserts the
// effect of the attempt, never the error text: a file's bytes unchanged, a
// victim absent, a pending approval still pending and answered only by the
// test (its deny is "resolved", not "already_resolved"), a secret absent
// from every model request body the fake model recorded.
//
// Every test runs once per sandbox mode the machine allows (sandbox.mode
// auto and strict; strict only where unprivileged user namespaces exist).
// Under sandbox.mode off a test runs only when its guarantee does not
// depend on the sandbox; the others are skipped with the reason they are
// expected to fail there.
//
// Every attack command also prints a marker, and the test fails when a
// marker is missing from the tool output: a command that never ran (a
// strict sandbox that cannot be built, a broken launcher) can never make a
// test pass vacuously.
//
// The attacker binary is this test binary itself: TestMain runs
// attackMain when os.Args[1] is attackArg. Each test links (or copies) it
// into the attacker's cwd, because inside the sandbox /tmp is private and
// the cwd is the only place the test and the tool both see.
package escape

import (
	"os"
	"testing"
	"time"

	gt "github.com/hermes-gateway/hermes/internal/gatewaytest"
)

// wait bounds every wait of these tests.
const wait = 20 * time.Second

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == attackArg {
		os.Exit(attackMain(os.Args[2:]))
	}
	os.Exit(gt.Main(m))
}
