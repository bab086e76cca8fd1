// Package faults names the crash points of docs/protocol.md#fault-points. Production builds compile
// Hit to nothing; binaries built with -tags faults read HERMES_FAULTS
// ("point[@N][:action][,point…]", action crash = SIGKILL self, hang = block
// forever) and act at the Nth time a point is reached.
//
// It owns the point names and the HERMES_FAULTS grammar, nothing of what a
// crash means to its caller. It imports nothing internal: store, model,
// tools, authority and daemon all call Hit, so faults must stay below every
// one of them.
package faults

// Named points (docs/protocol.md#fault-points). Callers pass these constants, never literals.
const (
	CreateBeforeCommit     = "create.before_commit"
	CreateAfterCommit      = "create.after_commit"
	AdmissionAfterCommit   = "admission.after_commit"
	ClaimBeforeCommit      = "claim.before_commit"
	ClaimAfterCommit       = "claim.after_commit"
	ModelAfterRequest      = "model.after_request"
	ToolAfterStart         = "tool.after_start"
	ApprovalAfterRequest   = "approval.after_request"
	ApprovalAfterResponse  = "approval.after_response"
	ToolAfterExit          = "tool.after_exit"
	CompressBeforeCommit   = "compress.before_commit"
	CompressAfterCommit    = "compress.after_commit"
	ResetBeforeCommit      = "reset.before_commit"
	ResetAfterCommit       = "reset.after_commit"
	SettleBeforeCommit     = "settle.before_commit"
	RecoveryAfterUnknown   = "recovery.after_unknown"
	RecoveryBeforeSchedule = "recovery.before_schedule"
	RecoveryAfterReady     = "recovery.after_ready"
	// RewindAfterPlan: a rewind's plan committed, nothing changed yet
	// (exercised by test/checkpoint).
	RewindAfterPlan = "rewind.after_plan"
)

// All lists every named point, for the crash suite.
var All = []string{
	CreateBeforeCommit, CreateAfterCommit, AdmissionAfterCommit, ClaimBeforeCommit,
	ClaimAfterCommit, ModelAfterRequest, ToolAfterStart, ApprovalAfterRequest,
	ApprovalAfterResponse, ToolAfterExit, CompressBeforeCommit, CompressAfterCommit,
	ResetBeforeCommit, ResetAfterCommit, SettleBeforeCommit, RecoveryAfterUnknown,
	RecoveryBeforeSchedule, RecoveryAfterReady, RewindAfterPlan,
}
