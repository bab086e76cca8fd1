package protocol

// Hooks (issue 12). Event names and payloads are contract.
const (
	// EventHookRun is journaled when one hook command ended (or was killed
	// at its timeout), in the turn it ran for.
	EventHookRun = "hook.run"
)

// Hook run outcomes.
const (
	HookOK      = "ok"      // exit 0 without a blocking decision
	HookBlocked = "blocked" // exit 2, or a blocking JSON decision
	HookFailed  = "failed"  // another exit code, or it could not start
	HookTimeout = "timeout" // killed with its process group at its timeout
)

// HookRunPayload is hook.run. ExitCode is -1 when the hook was killed or
// never started. Blocks is true when the hook stopped what it ran for
// (outcome blocked, or failed/timeout of a fail_closed hook). Reason is
// the hook's reason or failure (its stderr for exit 2), cut to 2 KiB.
type HookRunPayload struct {
	Event      string `json:"event"`
	Command    string `json:"command"`
	Source     string `json:"source"` // config or project
	ExitCode   int    `json:"exit_code"`
	DurationMS int64  `json:"duration_ms"`
	Outcome    string `json:"outcome"`
	Blocks     bool   `json:"blocks,omitempty"`
	FailClosed bool   `json:"fail_closed,omitempty"`
	Tool       string `json:"tool,omitempty"`
	Reason     string `json:"reason,omitempty"`
}
