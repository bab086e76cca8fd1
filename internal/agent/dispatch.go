package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/hermes-gateway/hermes/internal/model"
	"github.com/hermes-gateway/hermes/internal/tools"
)

// Tool results the model sees when a call could not finish.
const (
	resultInterrupted = "interrupted: the turn was interrupted before this call finished"
	resultNotRun      = "not run: the turn ended before this call started"
	resultToolFailed  = "error: the tool failed with an internal error; the turn was stopped"
	resultNoOutput    = "(no output)"
)

// dispatch runs the calls in order. A returned error ends the turn; by then
// every call of the message has its tool message.
func (r *run) dispatch(ctx context.Context, calls []model.ToolCall) error {
	for i, call := range calls {
		if err := ctx.Err(); err != nil {
			return r.closeRest(ctx, calls[i:], err)
		}
		res, runErr := r.runTool(ctx, call)
		r.t.Recorder.ToolComplete(call.ID, call.Function.Name, res)
		if err := r.recordResult(ctx, call, res); err != nil {
			return err
		}
		if runErr != nil {
			return r.closeRest(ctx, calls[i+1:], runErr)
		}
	}
	return nil
}

// runTool announces and runs one call. Unknown tools and bad arguments are
// error results the model sees; a non-nil error (interruption, internal
// failure, panic) comes with the result to record for this call.
func (r *run) runTool(ctx context.Context, call model.ToolCall) (tools.Result, error) {
	name := call.Function.Name
	args, argErr := parseArgs(call.Function.Arguments)
	r.t.Recorder.ToolStart(call.ID, name, eventArgs(args, call.Function.Arguments, argErr))
	tool, ok := r.byName[name]
	switch {
	case !ok:
		return errResult(fmt.Sprintf("unknown tool %q; available tools: %s", name, r.toolNames())), nil
	case argErr != nil:
		return errResult(fmt.Sprintf("invalid arguments for %s: %v", name, argErr)), nil
	}
	if r.t.Hooks != nil {
		if res, stop, err := r.preToolUse(ctx, name, hookCommand(name, args), args); stop {
			return res, err
		}
	}
	res, err := safeRun(ctx, tool, r.t.Env, args)
	switch {
	case err != nil && ctx.Err() != nil:
		return errResult(resultInterrupted), fmt.Errorf("tool %s: %w", name, err)
	case err != nil:
		return errResult(resultToolFailed), fmt.Errorf("tool %s: %w", name, err)
	}
	if r.t.Hooks != nil {
		return r.postToolUse(ctx, name, args, res)
	}
	return res, nil
}

// safeRun contains a tool panic as an error.
func safeRun(ctx context.Context, t tools.Tool, env *tools.Env, args json.RawMessage) (res tools.Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	return t.Run(ctx, env, args)
}

// closeRest records "not run" results for calls that will not run and
// returns cause.
func (r *run) closeRest(ctx context.Context, calls []model.ToolCall, cause error) error {
	for _, call := range calls {
		if err := r.recordResult(ctx, call, errResult(resultNotRun)); err != nil {
			return err
		}
	}
	return cause
}

func (r *run) recordResult(ctx context.Context, call model.ToolCall, res tools.Result) error {
	out := res.Output
	if out == "" {
		out = resultNoOutput
	}
	return r.record(ctx, model.Message{Role: model.RoleTool, ToolCallID: call.ID, Name: call.Function.Name, Content: out})
}

func (r *run) toolNames() string {
	if len(r.byName) == 0 {
		return "(none)"
	}
	names := make([]string, 0, len(r.byName))
	for n := range r.byName {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

func errResult(s string) tools.Result { return tools.Result{Output: s, IsError: true} }

// parseArgs validates call arguments: empty means {}, a JSON string that
// holds an object (double-encoded by some models) is unwrapped, anything
// else must be a JSON object.
func parseArgs(s string) (json.RawMessage, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return json.RawMessage("{}"), nil
	}
	if !json.Valid([]byte(s)) {
		return nil, fmt.Errorf("not valid JSON")
	}
	if s[0] == '"' {
		var inner string
		if json.Unmarshal([]byte(s), &inner) == nil {
			if in := strings.TrimSpace(inner); strings.HasPrefix(in, "{") && json.Valid([]byte(in)) {
				return json.RawMessage(in), nil
			}
		}
	}
	if s[0] != '{' {
		return nil, fmt.Errorf("arguments must be a JSON object")
	}
	return json.RawMessage(s), nil
}

// eventArgs is what ToolStart reports: the parsed object, or the raw text
// as a JSON string when it is not valid (so it can always be embedded).
func eventArgs(args json.RawMessage, raw string, err error) json.RawMessage {
	if err == nil {
		return args
	}
	b, _ := json.Marshal(raw)
	return b
}

// ToolSchemas converts tool specs to the model's function schemas, in order.
// A tool without parameters gets an empty object schema.
func ToolSchemas(ts []tools.Tool) []model.ToolSchema {
	if len(ts) == 0 {
		return nil
	}
	out := make([]model.ToolSchema, 0, len(ts))
	for _, t := range ts {
		s := t.Spec()
		params := s.Parameters
		if len(params) == 0 {
			params = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		out = append(out, model.ToolSchema{Type: "function",
			Function: model.FunctionSchema{Name: s.Name, Description: s.Description, Parameters: params}})
	}
	return out
}
