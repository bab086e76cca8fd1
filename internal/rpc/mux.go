package rpc

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
)

// HandlerFunc handles one request. params is the raw "params" member: nil
// when absent, otherwise a JSON object or null (the Conn rejects any other
// value before dispatch); decode it with DecodeParams. The result is
// marshalled as "result"; an error goes through WireError.
type HandlerFunc func(ctx context.Context, params json.RawMessage) (any, error)

// Mux is a method table. Handle is usually called before any Conn serves it,
// but it is safe for concurrent use.
type Mux struct {
	mu       sync.RWMutex
	handlers map[string]HandlerFunc // guarded by mu
}

// NewMux returns an empty Mux.
func NewMux() *Mux { return &Mux{handlers: make(map[string]HandlerFunc)} }

// Handle registers h for method. It panics on an empty method, a nil handler
// or a method registered twice: those are programming errors.
func (m *Mux) Handle(method string, h HandlerFunc) {
	if method == "" || h == nil {
		panic("rpc: Handle needs a method and a handler")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, dup := m.handlers[method]; dup {
		panic("rpc: method registered twice: " + method)
	}
	m.handlers[method] = h
}

// Methods returns the registered method names, sorted.
func (m *Mux) Methods() []string {
	m.mu.RLock()
	defer m.mu.RUnlock()
	names := make([]string, 0, len(m.handlers))
	for name := range m.handlers {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// lookup returns the handler of method, or nil. A nil Mux has no methods.
func (m *Mux) lookup(method string) HandlerFunc {
	if m == nil {
		return nil
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.handlers[method]
}
