package rpc

import (
	"encoding/json"
	"errors"

	"github.com/hermes-gateway/hermes/internal/protocol"
	"github.com/hermes-gateway/hermes/internal/strictjson"
)

// DecodeParams decodes params strictly into a T (docs/protocol.md#json-rpc) with the one
// strict decoder, strictjson, and its Required rule. Absent or null params
// decode as {}. Params must be a JSON object. Every failure is a
// *protocol.Error with reason invalid_params and a Detail naming the key and
// why:
//   - unknown keys, keys that differ only in case from a field's JSON name,
//     and duplicate keys, at the top level and in nested objects;
//   - missing required keys: a struct field whose json tag lacks omitempty
//     is required, at every level;
//   - null where the Go type cannot hold null (anything but a pointer, an
//     interface or a json.Unmarshaler such as json.RawMessage);
//   - wrong JSON types.
func DecodeParams[T any](raw json.RawMessage) (T, error) {
	var v T
	if err := (strictjson.Options{Required: true}).Decode(raw, &v); err != nil {
		var zero T
		return zero, invalidParams(paramsDetail(err))
	}
	return v, nil
}

func invalidParams(detail string) *protocol.Error {
	return &protocol.Error{Reason: protocol.ReasonInvalidParams, Detail: detail}
}

// paramsDetail is the public text of a strictjson refusal of params.
func paramsDetail(err error) string {
	var e *strictjson.Error
	if errors.As(err, &e) {
		switch e.Kind {
		case strictjson.NotObject:
			return "params must be a JSON object"
		case strictjson.Trailing:
			return "trailing data after params"
		}
	}
	return err.Error()
}
