package authority

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"

	"github.com/hermes-gateway/hermes/internal/agent"
	"github.com/hermes-gateway/hermes/internal/model"
	"github.com/hermes-gateway/hermes/internal/sandbox"
	"github.com/hermes-gateway/hermes/internal/session"
	"github.com/hermes-gateway/hermes/internal/store"
	"github.com/hermes-gateway/hermes/internal/tools"
)

// maxHistory bounds the transcript a turn sends (compression keeps it small).
const maxHistory = 100000

// turnBuilder assembles the turn of a claimed admission from the session's
// frozen policy, the live settings and the stored transcript: the model and
// its key, the system prompt, the history, the tools and their Env (the
// sandbox, the prompt waiters, the checkpoint hook) and the recorder, plus
// what an isolated (safe_mode) turn needs of `hermes worker`. It commits
// nothing (MCPTools may start the session's MCP servers; the checkpoint
// hook registers the turn's checkpoint state); the executor claims, runs
// and settles.
type turnBuilder struct {
	transcripts  messageReader                                                          // the store: history
	settings     func() Settings                                                        // the live settings
	launcher     func(sandbox.Mode) *sandbox.Launcher                                   // nil: tool processes run bare
	mcpTools     func(ctx context.Context, sid string, pol session.Policy) []tools.Tool // nil: no MCP tools
	beforeMutate func(l *live, pol session.Policy, s stamp) func(context.Context) error // the checkpoint hook (checkpoint.go)
	allow        func(pattern string) error                                             // records an "always" approval; nil: none
	processes    tools.ProcessTracker
	profileHome  string
	skillsDir    string
	worker       []string // the hermes worker argv; nil: safe_mode turns fail

	// What the turn's callbacks report to.
	journal turnJournal
	obs     Observer
	log     *slog.Logger
}

// messageReader reads a stored transcript (*store.Store).
type messageReader interface {
	Messages(ctx context.Context, sessionID string, limit int) ([]store.Message, int, error)
}

// newTurnBuilder is a's turn assembly: its wiring, its journal and its
// checkpoint hook.
func newTurnBuilder(a *Authority) turnBuilder {
	cfg := a.cfg
	return turnBuilder{
		transcripts: cfg.Store, settings: cfg.Settings, launcher: cfg.Launcher, mcpTools: cfg.MCPTools,
		beforeMutate: a.checkpointHook, allow: cfg.AppendAllowlist, processes: cfg.Processes,
		profileHome: cfg.ProfileHome, skillsDir: cfg.SkillsDir, worker: cfg.WorkerCommand,
		journal: a, obs: a.observer(), log: a.log,
	}
}

// build assembles the turn of admission adm of l, whose receipt is r. iso is
// non-nil for a safe_mode session: its turn runs in `hermes worker`.
func (b turnBuilder) build(ctx context.Context, l *live, r session.Receipt, adm store.Admission) (_ agent.Turn, iso *isolated, _ error) {
	s := stamp{generation: adm.Generation, admissionID: adm.AdmissionID}
	ts, err := tools.Build(r.Policy.Toolsets)
	if err != nil {
		return agent.Turn{}, nil, fmt.Errorf("tools: %w", err)
	}
	if b.mcpTools != nil && len(r.Policy.MCP) > 0 {
		ts = append(ts, b.mcpTools(ctx, l.id, r.Policy)...)
	}
	history, err := b.history(ctx, r.Entry.SessionID)
	if err != nil {
		return agent.Turn{}, nil, errors.New("history unavailable")
	}
	key := modelKey(l, r.Policy, b.settings())
	t := agent.Turn{
		Model:           model.New(model.Config{BaseURL: r.Policy.BaseURL, APIKey: key}),
		ModelName:       r.Policy.Model,
		Stream:          r.Policy.Streaming,
		ReasoningEffort: r.Policy.Reasoning,
		MaxTurns:        r.Policy.MaxTurns,
		History:         history,
		System:          systemPrompt(l.id, r.Policy),
		Input:           parsePayload(adm.PayloadJSON).Text,
		Tools:           ts,
		Env:             b.toolEnv(l, r.Policy, s),
		Recorder:        &recorder{j: b.journal, l: l, s: s, phys: r.Entry.SessionID, log: b.log},
	}
	if r.Policy.SafeMode {
		iso = b.isolate(r.Policy, key, t.Env)
	}
	return t, iso, nil
}

// modelKey is the launch key, else (never for safe_mode/ignore_user_config
// sessions, which have no daemon credentials) the profile key bound to the
// session's base_url, if it is a configured endpoint (session.ProfileKeyName).
func modelKey(l *live, pol session.Policy, s Settings) string {
	key := l.key()
	if key != "" || pol.CredentialRef != nil || pol.SafeMode || pol.IgnoreUserConfig || s.ProfileKey == nil {
		return key
	}
	if name, ok := session.ProfileKeyName(pol, s.Defaults); ok {
		return s.ProfileKey(name)
	}
	return ""
}

func systemPrompt(sid string, pol session.Policy) string {
	in := agent.PromptInput{Cwd: pol.Cwd, SessionID: sid, Platform: pol.Platform, PassSessionID: pol.PassSessionID}
	if pol.SkillsPrompt != nil {
		in.Skills = *pol.SkillsPrompt
	}
	if !pol.IgnoreRules && !pol.SafeMode {
		in.Rules = agent.LoadRules(pol.Cwd)
	}
	return agent.SystemPrompt(in)
}

// toolEnv is the Env of one turn's tools (of stamp s; stamp{} for hooks
// run outside a turn). Yolo reaches only the approver: the sandbox applies
// to every session.
func (b turnBuilder) toolEnv(l *live, pol session.Policy, s stamp) *tools.Env {
	k := b.asker(l, s)
	env := &tools.Env{
		SessionID:    l.id,
		Cwd:          pol.Cwd,
		Approver:     &approver{asker: k, settings: b.settings, allow: b.allow, yolo: pol.Yolo},
		Clarifier:    &clarifier{asker: k, settings: b.settings},
		UI:           &uiSink{j: b.journal, l: l, s: s, log: b.log},
		Processes:    b.processes,
		Todos:        l.todos,
		SkillsDir:    b.skillsDir,
		BeforeMutate: b.beforeMutate(l, pol, s),
	}
	b.sandboxEnv(env, l.id, pol, b.settings())
	return env
}

// asker is the prompt asker of l's turn of stamp s.
func (b turnBuilder) asker(l *live, s stamp) asker {
	return asker{j: b.journal, l: l, s: s, obs: b.obs, log: b.log}
}

func (b turnBuilder) history(ctx context.Context, phys string) ([]model.Message, error) {
	rows, _, err := b.transcripts.Messages(ctx, phys, maxHistory)
	if err != nil {
		return nil, err
	}
	return modelMessages(rows), nil
}

// modelMessages is a stored transcript as the model reads it.
func modelMessages(rows []store.Message) []model.Message {
	out := make([]model.Message, 0, len(rows))
	for _, m := range rows {
		mm := model.Message{Role: m.Role, Content: m.Content, ToolCallID: m.ToolCallID}
		if m.Role == "tool" {
			mm.Name = m.ToolName
		}
		if m.ToolCallsJSON != "" {
			_ = json.Unmarshal([]byte(m.ToolCallsJSON), &mm.ToolCalls)
		}
		out = append(out, mm)
	}
	return out
}
