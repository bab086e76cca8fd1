// Package modeltest is a loopback fake of an OpenAI-compatible
// /chat/completions endpoint for tests at every level, including a built
// binary in another process (it listens on 127.0.0.1).
//
// It may import only model (the wire types it serves) and must never import
// agent, authority or anything else above the client it fakes; only tests
// import it.
//
// Replies are scripted (Script, consumed in order, one per request) or
// computed (Handle). A Reply can also misbehave the way real servers do:
// HTTP errors, held replies (Barrier), a connection closed mid-stream, a
// stream that never ends, invalid SSE, and the stream dialects of Ollama,
// vLLM and llama.cpp (Quirk).
//
// Every handler goroutine ends when its client goes away or the server is
// closed (t.Cleanup), so packages using it can run goleak.
package modeltest

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// Server is a running fake model endpoint.
type Server struct {
	srv    *httptest.Server
	closed chan struct{} // closed first on shutdown: releases held handlers

	mu      sync.Mutex
	script  []Reply              // pending scripted replies; guarded by mu
	handle  func(*Request) Reply // overrides script when set; guarded by mu
	reqs    []*Request           // captured requests; guarded by mu
	changed chan struct{}        // closed and replaced when reqs grows; guarded by mu
}

// New starts a Server on 127.0.0.1; it is closed on t.Cleanup.
func New(t testing.TB) *Server {
	t.Helper()
	s := newServer()
	s.srv = httptest.NewServer(s.mux())
	t.Cleanup(s.Close)
	return s
}

// NewHandler returns a Server that is not listening, and its http.Handler,
// for standalone use (e.g. a helper process serving on its own listener).
// The caller must call Close when done; URL is not available.
func NewHandler() (*Server, http.Handler) {
	s := newServer()
	return s, s.mux()
}

func newServer() *Server {
	return &Server{closed: make(chan struct{}), changed: make(chan struct{})}
}

func (s *Server) mux() http.Handler {
	m := http.NewServeMux()
	m.HandleFunc("GET /v1/models", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"object":"list","data":[]}`)
	})
	m.HandleFunc("POST /v1/chat/completions", s.complete)
	return m
}

// Close releases held replies and stops the server. It is idempotent.
func (s *Server) Close() {
	s.mu.Lock()
	select {
	case <-s.closed:
	default:
		close(s.closed)
	}
	s.mu.Unlock()
	if s.srv != nil {
		s.srv.CloseClientConnections()
		s.srv.Close()
	}
}

// URL is the base_url to configure, ending in "/v1".
func (s *Server) URL() string { return s.srv.URL + "/v1" }

// Script appends replies to the queue; each request consumes the next one.
// A request with nothing scripted gets HTTP 500.
func (s *Server) Script(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script = append(s.script, replies...)
}

// Handle computes every reply with f instead of the script. f runs on the
// handler goroutine and must not block beyond the request.
func (s *Server) Handle(f func(r *Request) Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.handle = f
}

// Requests returns the requests captured so far, in order of arrival.
func (s *Server) Requests() []*Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*Request(nil), s.reqs...)
}

// AwaitRequests blocks until at least n requests arrived and returns them.
func (s *Server) AwaitRequests(ctx context.Context, n int) ([]*Request, error) {
	for {
		s.mu.Lock()
		reqs, ch := append([]*Request(nil), s.reqs...), s.changed
		s.mu.Unlock()
		if len(reqs) >= n {
			return reqs, nil
		}
		select {
		case <-ctx.Done():
			return reqs, fmt.Errorf("modeltest: %d of %d requests: %w", len(reqs), n, ctx.Err())
		case <-ch:
		}
	}
}

// record stores r and picks its reply.
func (s *Server) record(r *Request) Reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs = append(s.reqs, r)
	r.N = len(s.reqs)
	close(s.changed)
	s.changed = make(chan struct{})
	if s.handle != nil {
		return s.handle(r)
	}
	if len(s.script) == 0 {
		return Reply{Status: http.StatusInternalServerError,
			ErrorBody: fmt.Sprintf(`{"error":{"message":"modeltest: no reply scripted for request %d","type":"server_error"}}`, r.N)}
	}
	next := s.script[0]
	s.script = s.script[1:]
	return next
}

func (s *Server) complete(w http.ResponseWriter, hr *http.Request) {
	raw, err := io.ReadAll(io.LimitReader(hr.Body, 64<<20))
	if err != nil {
		return
	}
	req, err := parseRequest(raw, hr.Header)
	if err != nil {
		http.Error(w, `{"error":{"message":"modeltest: bad request body","type":"invalid_request_error"}}`, http.StatusBadRequest)
		return
	}
	reply := s.record(req)
	if reply.Hold != nil && !reply.Hold.wait(hr.Context().Done(), s.closed) {
		return
	}
	if reply.Drop {
		hangUp(w, false)
		return
	}
	if reply.Status != 0 && reply.Status != http.StatusOK {
		writeError(w, reply)
		return
	}
	wr := &writer{w: w, reply: reply, req: req, gone: hr.Context().Done(), closed: s.closed}
	if req.Stream {
		wr.stream()
	} else {
		wr.json()
	}
}

func writeError(w http.ResponseWriter, r Reply) {
	body := r.ErrorBody
	if body == "" {
		body = fmt.Sprintf(`{"error":{"message":"modeltest: status %d","type":"server_error"}}`, r.Status)
	}
	if strings.HasPrefix(strings.TrimSpace(body), "{") {
		w.Header().Set("Content-Type", "application/json")
	}
	w.WriteHeader(r.Status)
	_, _ = io.WriteString(w, body)
}

// hangUp closes the TCP connection without ending the HTTP response;
// flush first sends what was written (headers included).
func hangUp(w http.ResponseWriter, flush bool) {
	if f, ok := w.(http.Flusher); ok && flush {
		f.Flush()
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic(http.ErrAbortHandler)
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	_ = conn.Close()
}
