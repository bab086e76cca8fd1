package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// patchTool replaces exact text in a file (docs/protocol.md#tools "patch").
type patchTool struct{}

func (patchTool) Spec() Spec {
	return spec("patch", "Replace an exact occurrence of old with new in a file. old must match "+
		"exactly once unless replace_all is true. Patching outside the session directory asks the user first.", `{
  "type": "object",
  "properties": {
    "path": {"type": "string", "minLength": 1, "description": "File to edit; relative to the session directory."},
    "old": {"type": "string", "minLength": 1, "description": "Exact text to replace, including whitespace."},
    "new": {"type": "string", "description": "Replacement text."},
    "replace_all": {"type": "boolean", "description": "Replace every occurrence (default false)."}
  },
  "required": ["path", "old", "new"],
  "additionalProperties": false
}`)
}

type patchArgs struct {
	Path       string  `json:"path"`
	Old        string  `json:"old"`
	New        *string `json:"new"`
	ReplaceAll bool    `json:"replace_all"`
}

func (patchTool) Run(ctx context.Context, env *Env, raw json.RawMessage) (Result, error) {
	var a patchArgs
	if err := decodeArgs(raw, &a); err != nil {
		return failf("%v", err), nil
	}
	if a.Old == "" || a.New == nil {
		return failf("invalid arguments: old must be non-empty and new is required"), nil
	}
	g, res, ok, err := confine(ctx, env, "patch", accessWrite, a.Path)
	if !ok || err != nil {
		return res, err
	}
	real := g.path
	data, err := g.readAll()
	if err != nil {
		return failf("cannot read %s: %v", real, err), nil
	}
	text := string(data)
	n := strings.Count(text, a.Old)
	switch {
	case n == 0:
		return failf("old text not found in %s; nothing changed", real), nil
	case n > 1 && !a.ReplaceAll:
		return failf("old text matches %d times in %s; add surrounding context or set replace_all", n, real), nil
	}
	if !a.ReplaceAll {
		text = strings.Replace(text, a.Old, *a.New, 1)
	} else {
		text = strings.ReplaceAll(text, a.Old, *a.New)
	}
	if err := beforeMutate(ctx, env); err != nil {
		return Result{}, err
	}
	if err := g.write([]byte(text)); err != nil {
		return failf("cannot write %s: %v", real, err), nil
	}
	return Result{Output: fmt.Sprintf("replaced %d occurrence(s) in %s", n, real)}, nil
}
