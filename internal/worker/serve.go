package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/hermes-gateway/hermes/internal/agent"
	"github.com/hermes-gateway/hermes/internal/model"
	"github.com/hermes-gateway/hermes/internal/sandbox"
	"github.com/hermes-gateway/hermes/internal/tools"
)

// errDaemonGone: the daemon closed the worker's stdin (or sent garbage)
// before answering; the turn cannot go on.
var errDaemonGone = errors.New("worker: the daemon is gone")

// Serve is the worker process side (`hermes worker`): it reads the Spec from
// in, runs the turn with tools whose callbacks are forwarded over out, writes
// the result frame, and returns once the daemon has closed in. A spec that
// cannot be read is reported as a failed result and returned as an error.
func Serve(ctx context.Context, in io.Reader, out io.Writer) error {
	lines := newLineReader(in, maxDaemonFrame)
	enc := newEncoder(out)
	spec, err := readSpec(lines)
	if err != nil {
		_ = enc.write(frame{Kind: kindResult, Result: toWire(agent.Result{Outcome: agent.OutcomeFailed, Err: err})})
		return err
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	r := newRemote(enc, cancel)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		r.readLoop(lines)
	}()
	res := runTurn(ctx, spec, r)
	werr := enc.write(frame{Kind: kindResult, Result: toWire(res)})
	wg.Wait() // stop signal: the daemon closes our stdin after the result
	if werr != nil {
		return fmt.Errorf("write result: %w", werr)
	}
	return nil
}

func readSpec(lines *lineReader) (Spec, error) {
	line, err := lines.next()
	if err != nil {
		return Spec{}, fmt.Errorf("worker: read spec: %w", err)
	}
	var s Spec
	if err := json.Unmarshal(line, &s); err != nil {
		return Spec{}, fmt.Errorf("worker: decode spec: %w", err)
	}
	return s, nil
}

// runTurn is agent.Run with the spec's model, tools and a remote Env.
func runTurn(ctx context.Context, s Spec, r *remote) agent.Result {
	ts, err := tools.Build(s.Toolsets)
	if err != nil {
		return agent.Result{Outcome: agent.OutcomeFailed, Err: fmt.Errorf("tools: %w", err)}
	}
	return agent.Run(ctx, agent.Turn{
		Model:           model.New(model.Config{BaseURL: s.BaseURL, APIKey: s.APIKey}),
		ModelName:       s.Model,
		Stream:          s.Stream,
		ReasoningEffort: s.ReasoningEffort,
		MaxTurns:        s.MaxTurns,
		History:         s.History,
		System:          s.System,
		Input:           s.Input,
		Tools:           ts,
		Env:             toolEnv(s, r),
		Recorder:        r,
	})
}

// toolEnv is the worker's tool Env: callbacks over the pipe, and the
// session's sandbox with a Launcher of the worker's own.
func toolEnv(s Spec, r *remote) *tools.Env {
	env := &tools.Env{
		SessionID: s.SessionID, Cwd: s.Cwd, SkillsDir: s.SkillsDir,
		Approver: r, Clarifier: r, UI: r, Processes: r,
	}
	if b := s.Sandbox; b != nil {
		exe := b.Exe
		if exe == "" {
			exe, _ = os.Executable()
		}
		env.Sandbox, env.SandboxPolicy = sandbox.New(exe, b.Mode), b.Policy
		env.ProfileHome, env.WritableRoots, env.ProtectedPaths = b.ProfileHome, b.WritableRoots, b.ProtectedPaths
	}
	return env
}
