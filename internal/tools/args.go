package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// decodeArgs decodes a tool call's JSON arguments strictly: unknown fields
// and trailing data are errors the model is told about. Empty or null
// arguments decode as {}.
func decodeArgs(raw json.RawMessage, v any) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		raw = []byte("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("invalid arguments: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errors.New("invalid arguments: trailing data after the JSON object")
	}
	return nil
}

// failf is a Result that reports a failure to the model.
func failf(format string, args ...any) Result {
	return Result{Output: fmt.Sprintf(format, args...), IsError: true}
}

// jsonResult renders v as the tool output.
func jsonResult(v any) (Result, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return Result{}, fmt.Errorf("encode result: %w", err)
	}
	return Result{Output: string(b)}, nil
}

// spec builds a Spec from a literal JSON Schema.
func spec(name, description, schema string) Spec {
	return Spec{Name: name, Description: description, Parameters: json.RawMessage(schema)}
}
