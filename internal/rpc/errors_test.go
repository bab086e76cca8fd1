package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hermes-gateway/hermes/internal/protocol"
)

func TestWireError(t *testing.T) {
	t.Parallel()
	storage := &WireErr{Code: 5001, Message: "storage_unavailable", Data: &ErrorData{Reason: protocol.ReasonStorageUnavailable}}
	tests := []struct {
		name string
		err  error
		want *WireErr
	}{
		{"nil", nil, nil},
		{"plain", errors.New("sqlite: locked"), storage},
		{"context", context.Canceled, storage},
		{"domain", &protocol.Error{Reason: protocol.ReasonPermissionDenied}, &WireErr{Code: 4001, Message: "permission_denied", Data: &ErrorData{Reason: protocol.ReasonPermissionDenied}}},
		{"detail", protocol.Errorf(protocol.ReasonInvalidParams, "bad %s", "cwd"), &WireErr{Code: 4001, Message: "invalid_params", Data: &ErrorData{Reason: protocol.ReasonInvalidParams, Detail: "bad cwd"}}},
		{"wrapped domain", fmt.Errorf("create: %w", &protocol.Error{Reason: protocol.ReasonRuntimeDraining}), &WireErr{Code: 4001, Message: "runtime_draining", Data: &ErrorData{Reason: protocol.ReasonRuntimeDraining}}},
		{"cause hidden", protocol.Wrap(protocol.ReasonStaleEpoch, errors.New("epoch 3 != 4")), &WireErr{Code: 4001, Message: "stale_epoch", Data: &ErrorData{Reason: protocol.ReasonStaleEpoch}}},
		{"storage reason", protocol.Wrap(protocol.ReasonStorageUnavailable, errors.New("io")), storage},
		{"unknown method", &protocol.Error{Reason: protocol.ReasonUnknownMethod, Detail: "x.y"}, &WireErr{Code: -32601, Message: "unknown method: x.y", Data: &ErrorData{Reason: protocol.ReasonUnknownMethod}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if d := cmp.Diff(tt.want, WireError(tt.err)); d != "" {
				t.Errorf("(-want +got)\n%s", d)
			}
		})
	}
}

func TestMux(t *testing.T) {
	t.Parallel()
	m := testMux(t)
	if d := cmp.Diff([]string{"echo", "internal", "missing", "panic", "ping", "wrapped"}, m.Methods()); d != "" {
		t.Errorf("Methods (-want +got)\n%s", d)
	}
	for name, f := range map[string]func(){
		"duplicate": func() { m.Handle("ping", func(context.Context, json.RawMessage) (any, error) { return nil, nil }) },
		"empty":     func() { m.Handle("", func(context.Context, json.RawMessage) (any, error) { return nil, nil }) },
		"nil":       func() { m.Handle("x", nil) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: Handle did not panic", name)
				}
			}()
			f()
		}()
	}
}
