// Package gatewaytest runs the real hermes binary for process-level tests:
// it builds ./cmd/hermes once per test binary and tag set (Build), makes
// throw-away profile homes with a rendered config.yaml (NewHome, Config),
// starts, SIGKILLs and stops daemons (Start, Launch, Daemon), connects
// WebSocket viewers with a native ticket from the control socket
// (Daemon.Connect), records their events (Record), opens state.db read-only
// after the daemon exited (OpenDB) and keeps an fsynced effects ledger that
// shell commands run by the terminal tool append to (Ledger).
//
// It may import only client, control, protocol, rpc, modeltest and store,
// and must never import authority, server or daemon: the daemon under test
// runs in its own process, reached only the way a real client or operator
// reaches it.
//
// Tests wait for conditions with deadlines (Await, Recorder.Await), never
// with sleeps. Every process and connection the package starts is ended in
// t.Cleanup; a failed test prints the daemon's captured output.
//
// Test binaries that use Build should call Main from TestMain so the built
// binaries are removed at exit:
//
//	func TestMain(m *testing.M) { os.Exit(gatewaytest.Main(m)) }
package gatewaytest
