package tools

import (
	"context"
	"encoding/json"
	"fmt"
)

// writeFileTool creates or replaces a file (docs/protocol.md#tools "write_file").
type writeFileTool struct{}

func (writeFileTool) Spec() Spec {
	return spec("write_file", "Create or replace a file with the given content, creating parent "+
		"directories. Writing outside the session directory asks the user first.", `{
  "type": "object",
  "properties": {
    "path": {"type": "string", "minLength": 1, "description": "File to write; relative to the session directory."},
    "content": {"type": "string", "description": "The complete new content."}
  },
  "required": ["path", "content"],
  "additionalProperties": false
}`)
}

type writeFileArgs struct {
	Path    string  `json:"path"`
	Content *string `json:"content"`
}

func (writeFileTool) Run(ctx context.Context, env *Env, raw json.RawMessage) (Result, error) {
	var a writeFileArgs
	if err := decodeArgs(raw, &a); err != nil {
		return failf("%v", err), nil
	}
	if a.Content == nil {
		return failf("invalid arguments: content is required"), nil
	}
	g, res, ok, err := confine(ctx, env, "write_file", accessWrite, a.Path)
	if !ok || err != nil {
		return res, err
	}
	if err := beforeMutate(ctx, env); err != nil {
		return Result{}, err
	}
	if err := g.write([]byte(*a.Content)); err != nil {
		return failf("cannot write %s: %v", g.path, err), nil
	}
	return Result{Output: fmt.Sprintf("wrote %d bytes to %s", len(*a.Content), g.path)}, nil
}
