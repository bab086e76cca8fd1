package tools

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/hermes-gateway/hermes/internal/strictjson"
)

// decodeArgs decodes a tool call's JSON arguments with the one strict
// decoder: unknown, case-variant and duplicate keys, wrong types and
// trailing data are errors the model is told about. Empty or null
// arguments decode as {}.
func decodeArgs(raw json.RawMessage, v any) error {
	if err := strictjson.Decode(raw, v); err != nil {
		var e *strictjson.Error
		// The model has always been told "unknown field".
		if errors.As(err, &e) && e.Kind == strictjson.Unknown {
			return fmt.Errorf("invalid arguments: unknown field %q", e.Path)
		}
		return fmt.Errorf("invalid arguments: %w", err)
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
