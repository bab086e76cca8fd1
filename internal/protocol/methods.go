package protocol

// Subprotocol is the WebSocket subprotocol the server selects.
const Subprotocol = "hermes-gateway-v1"

// TicketSubprotocolPrefix prefixes the native ticket offered as a subprotocol.
const TicketSubprotocolPrefix = "hermes-gateway-ticket."

// DesktopProtocol is the value of session.info desktop_protocol.
const DesktopProtocol = "hermes-gateway-v1"

// Method names (docs/protocol.md#methods).
const (
	MethodPing                 = "ping"
	MethodRuntimeDescribe      = "runtime.describe"
	MethodSessionCreate        = "session.create"
	MethodSessionResume        = "session.resume"
	MethodSessionDetach        = "session.detach"
	MethodSessionList          = "session.list"
	MethodSessionInfo          = "session.info"
	MethodSessionMutate        = "session.mutate"
	MethodSessionInterrupt     = "session.interrupt"
	MethodSessionEventsSince   = "session.events.since"
	MethodPromptSubmit         = "prompt.submit"
	MethodPromptReceipt        = "prompt.receipt"
	MethodPromptCancel         = "prompt.cancel"
	MethodPromptResolveUnknown = "prompt.resolve_unknown"
	MethodApprovalRespond      = "approval.respond"
	MethodClarifyRespond       = "clarify.respond"
	// MethodEvent is the notification method of every server event.
	MethodEvent = "event"
)

// Capabilities granted by the gates (docs/protocol.md#gates). They never come from params.
const (
	CapCreate   = "session:create"
	CapRead     = "session:read"
	CapSubmit   = "session:submit"
	CapControl  = "session:control"
	CapApprove  = "session:approve"
	CapRespond  = "session:respond"
	CapOperator = "session:operator"
)

// Sources accepted by session.create, in the order runtime.describe lists them.
var Sources = []string{"cli", "tui", "gui", "acp", "tool", "oneshot"}

// RuntimeCapabilities are advertised by runtime.describe and control identify.
var RuntimeCapabilities = []string{
	"session-authority-v1",
	"durable-admission-v1",
	"event-replay-v1",
	"local-cli-create-v1",
}
