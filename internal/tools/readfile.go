package tools

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

const (
	defaultReadLines = 2000
	maxReadBytes     = 256 << 10 // bytes of output per call
	maxLineBytes     = 2000      // a longer line is cut
)

// readFileTool reads a text file with line numbers (docs/protocol.md#tools "read_file").
type readFileTool struct{}

func (readFileTool) Spec() Spec {
	return spec("read_file", "Read a text file, with line numbers. Relative paths are resolved "+
		"against the session directory; reading outside it asks the user first. Use offset and limit to page through large files.", `{
  "type": "object",
  "properties": {
    "path": {"type": "string", "minLength": 1, "description": "File to read."},
    "offset": {"type": "integer", "minimum": 1, "description": "First line to return (1-based, default 1)."},
    "limit": {"type": "integer", "minimum": 1, "description": "Maximum number of lines (default 2000)."}
  },
  "required": ["path"],
  "additionalProperties": false
}`)
}

type readFileArgs struct {
	Path   string `json:"path"`
	Offset int    `json:"offset"`
	Limit  int    `json:"limit"`
}

func (readFileTool) Run(ctx context.Context, env *Env, raw json.RawMessage) (Result, error) {
	var a readFileArgs
	if err := decodeArgs(raw, &a); err != nil {
		return failf("%v", err), nil
	}
	if a.Offset < 0 || a.Limit < 0 {
		return failf("invalid arguments: offset and limit must be positive"), nil
	}
	g, res, ok, err := confine(ctx, env, "read_file", accessRead, a.Path)
	if !ok || err != nil {
		return res, err
	}
	f, err := g.openRead()
	if errors.Is(err, errIsDir) {
		return failf("%s is a directory", g.path), nil
	}
	if err != nil {
		return failf("cannot read %s: %v", g.path, err), nil
	}
	defer f.Close()
	return readLines(f, g.path, max(a.Offset, 1), cmpOr(a.Limit, defaultReadLines))
}

// readLines renders lines [offset, offset+limit) of r as "N\tline".
func readLines(r io.Reader, name string, offset, limit int) (Result, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	if head, _ := br.Peek(8 << 10); isBinary(head) {
		return failf("%s is a binary file", name), nil
	}
	var out strings.Builder
	n := 0
	for {
		line, err := br.ReadString('\n')
		if line == "" && err != nil {
			break
		}
		n++
		if n < offset {
			continue
		}
		if n >= offset+limit || out.Len() > maxReadBytes {
			fmt.Fprintf(&out, "[truncated: more lines follow; read again with offset %d]\n", n)
			break
		}
		line = strings.TrimRight(line, "\r\n")
		if len(line) > maxLineBytes {
			line = line[:maxLineBytes] + " [line cut]"
		}
		fmt.Fprintf(&out, "%6d\t%s\n", n, line)
	}
	if out.Len() == 0 {
		return Result{Output: fmt.Sprintf("[%s has %d lines; nothing at offset %d]", name, n, offset)}, nil
	}
	return Result{Output: out.String()}, nil
}

func cmpOr(v, def int) int {
	if v > 0 {
		return v
	}
	return def
}
