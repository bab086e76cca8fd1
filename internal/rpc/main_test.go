package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/hermes-gateway/hermes/internal/protocol"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// logBuffer is a concurrency-safe log sink.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func (b *logBuffer) logger() *slog.Logger { return slog.New(slog.NewJSONHandler(b, nil)) }

// testMux has the handlers the engine tests use.
func testMux(t testing.TB) *Mux {
	m := NewMux()
	m.Handle("ping", func(ctx context.Context, params json.RawMessage) (any, error) {
		if _, err := DecodeParams[struct{}](params); err != nil {
			return nil, err
		}
		return map[string]bool{"pong": true}, nil
	})
	m.Handle("echo", func(ctx context.Context, params json.RawMessage) (any, error) {
		return DecodeParams[struct {
			N int `json:"n"`
		}](params)
	})
	m.Handle("missing", func(ctx context.Context, _ json.RawMessage) (any, error) {
		return nil, protocol.Errorf(protocol.ReasonNotFound, "no session %q", "s1")
	})
	m.Handle("internal", func(ctx context.Context, _ json.RawMessage) (any, error) {
		return nil, errors.New("sqlite: disk I/O error at /secret/path")
	})
	m.Handle("wrapped", func(ctx context.Context, _ json.RawMessage) (any, error) {
		return nil, protocol.Wrap(protocol.ReasonStorageUnavailable, errors.New("hidden cause"))
	})
	m.Handle("panic", func(ctx context.Context, _ json.RawMessage) (any, error) {
		panic("boom: secret panic text")
	})
	return m
}

// jsonEqual fails the test unless got and want are the same JSON value.
func jsonEqual(t testing.TB, got []byte, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("reply is not JSON: %q", got)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("bad want %q", want)
	}
	if d := cmp.Diff(w, g); d != "" {
		t.Errorf("frame mismatch (-want +got):\n%s\ngot: %s", d, got)
	}
}
