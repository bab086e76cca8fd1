package tools

import (
	"context"
	"encoding/json"
	"time"

	"github.com/hermes-gateway/hermes/internal/sandbox"
)

// Spec is the function schema a tool offers the model.
type Spec struct {
	Name        string
	Description string
	Parameters  json.RawMessage // JSON Schema object
}

// Result is what the model sees as the tool message. IsError marks a result
// that reports a failure to the model (bad arguments, a denied command, a
// non-zero exit); the turn goes on.
type Result struct {
	Output  string
	IsError bool
}

// Tool is one callable tool. Run returns an error only for failures that are
// not the model's business (context cancelled = interrupted turn); everything
// else is a Result with IsError.
type Tool interface {
	Spec() Spec
	Run(ctx context.Context, env *Env, args json.RawMessage) (Result, error)
}

// Approval kinds: the approval.request payload's kind.
const (
	KindCommand    = "approval"   // a dangerous terminal command
	KindFile       = "file"       // a file tool outside the cwd, or on a protected path
	KindEscalation = "escalation" // a terminal command asking to run outside the sandbox
	KindHooks      = "hooks"      // first use of a project's .hermes/hooks.yaml (issue 12)
)

// ApprovalRequest asks a human to consent to a dangerous action.
type ApprovalRequest struct {
	Kind        string // KindCommand ("" means it), KindFile or KindEscalation
	Command     string // the command (or "write_file <path>") shown to the human
	Description string // why it needs consent
	Pattern     string // the classifier pattern key, for "session"/"always" memory
	// Mandatory requests are asked even under yolo, approvals.mode off, the
	// allowlist or a "session" approval, and offer only once and deny:
	// nothing remembers them (escalations, protected paths).
	Mandatory bool
}

// Approver decides on dangerous actions. The gateway's implementation checks
// yolo, the session's approvals and the live command_allowlist before asking
// viewers; it blocks until answered, the configured timeout (deny) or ctx.
type Approver interface {
	Approve(ctx context.Context, req ApprovalRequest) (allowed bool, err error)
}

// Question is one clarify question.
type Question struct {
	Question    string
	Choices     []string
	MultiSelect bool
}

// Clarifier asks a viewer a question and blocks for the answer.
type Clarifier interface {
	Ask(ctx context.Context, q Question) (answer string, err error)
}

// UISink publishes ui.* events for GUI viewers (desktop_ui toolset).
type UISink interface {
	UIEvent(kind string, payload any)
}

// ProcessTracker is told about every child process a tool starts, so the
// control socket can refuse tickets to their descendants.
type ProcessTracker interface {
	Started(pid int)
	Exited(pid int)
}

// Env is the per-call context of a tool: the frozen session facts plus the
// gateway's callbacks. Nil callbacks mean "not available" (a nil Approver
// denies every dangerous action).
type Env struct {
	SessionID       string
	Cwd             string // frozen absolute session cwd
	Approver        Approver
	Clarifier       Clarifier
	UI              UISink
	Processes       ProcessTracker
	Todos           *TodoList     // per-session todo state; nil = a fresh list
	SkillsDir       string        // $HERMES_HOME/skills
	TerminalTimeout time.Duration // default per command; 0 = 180s
	OutputCap       int           // bytes of output kept; 0 = 64 KiB

	// ProfileHome is $HERMES_HOME: hidden from tool processes; file tools
	// always ask inside it and never write its config.yaml or .env.
	ProfileHome string
	// WritableRoots are sandbox.writable_roots (absolute): file tools treat
	// them like the cwd.
	WritableRoots []string
	// ProtectedPaths (absolute) always ask, even inside the cwd: the
	// sandbox's hidden paths and the shell startup files.
	ProtectedPaths []string
	// UserHome is the user's home. When the cwd or a writable root contains
	// it, writes to its top level and beneath its dot-entries ask (the
	// sandbox keeps them read-only for shell commands: ~/.bashrc,
	// ~/.config/systemd, ~/.local/bin hold what runs later, outside it).
	UserHome string
	// Sandbox runs the processes a tool starts; nil runs them bare (only
	// tests that say so).
	Sandbox *sandbox.Launcher
	// SandboxPolicy is the session's policy: the launcher runs each command
	// under it (Cwd filled per call).
	SandboxPolicy sandbox.Policy
	// EnvPassthrough is terminal.env_passthrough: names added to the tool
	// environment's allow-list.
	EnvPassthrough []string
	// BeforeMutate, when set, runs just before a tool changes files
	// (write_file, patch, every terminal command): the gateway checkpoints
	// the cwd there. It returns an error only when the call must not run.
	BeforeMutate func(ctx context.Context) error
}
