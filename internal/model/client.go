// Package model is a hand-rolled client for OpenAI-compatible
// /chat/completions endpoints (OpenAI, OpenRouter, vLLM, llama.cpp, Ollama),
// streaming (SSE) and non-streaming (JSON).
//
// It may import only faults and ids, and must never import agent, tools or
// anything of a session: it speaks one endpoint's wire format and knows no
// turn.
//
// Retry policy: an attempt is retried with exponential backoff only while
// nothing of the response body has been received (connection refused, 408,
// 429, 5xx, a reset before the first byte). Once output has started, any
// failure is returned to the caller, which fails the turn: a partial reply
// is never silently replayed and a tool is never re-run.
//
// The client owns no goroutines beyond the request it is serving; every
// callback runs on the goroutine that called Complete. The API key is sent
// only as an Authorization header and never appears in an error string.
package model

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"time"

	"github.com/hermes-gateway/hermes/internal/faults"
)

// Defaults applied by New to zero Config fields.
const (
	DefaultTimeout      = 10 * time.Minute
	DefaultIdleTimeout  = 2 * time.Minute
	DefaultMaxRetries   = 2
	DefaultBackoff      = 500 * time.Millisecond
	DefaultMaxLineBytes = 8 << 20
	maxRetryAfter       = time.Minute
	maxErrorBody        = 64 << 10
)

// Config configures a Client. Zero fields take the defaults above.
type Config struct {
	BaseURL    string // e.g. "http://127.0.0.1:11434/v1"; "/chat/completions" is appended
	APIKey     string // sent as "Authorization: Bearer"; empty = no header
	HTTPClient *http.Client
	// Timeout bounds one attempt, from sending the request to the end of
	// the reply (default 10m).
	Timeout time.Duration
	// IdleTimeout is the longest gap between stream data, counted from the
	// response headers (default 2m). It does not apply to JSON replies.
	IdleTimeout time.Duration
	// MaxRetries is the number of retries before output; negative = none.
	MaxRetries int
	// Backoff is the base delay, doubled per retry, with jitter.
	Backoff time.Duration
	// MaxLineBytes caps one SSE line and a JSON body (default 8 MiB).
	MaxLineBytes int
}

// Client calls one OpenAI-compatible endpoint. It is safe for concurrent use.
type Client struct {
	cfg  Config
	http *http.Client
	url  string
}

// New returns a Client for cfg, with defaults applied.
func New(cfg Config) *Client {
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = DefaultIdleTimeout
	}
	switch {
	case cfg.MaxRetries == 0:
		cfg.MaxRetries = DefaultMaxRetries
	case cfg.MaxRetries < 0:
		cfg.MaxRetries = 0
	}
	if cfg.Backoff <= 0 {
		cfg.Backoff = DefaultBackoff
	}
	if cfg.MaxLineBytes <= 0 {
		cfg.MaxLineBytes = DefaultMaxLineBytes
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{}
	}
	return &Client{cfg: cfg, http: hc, url: strings.TrimRight(cfg.BaseURL, "/") + "/chat/completions"}
}

// retryable marks an attempt error that happened before any output.
type retryable struct {
	err   error
	after time.Duration // server-requested minimum delay (Retry-After)
}

func (r *retryable) Error() string { return r.err.Error() }
func (r *retryable) Unwrap() error { return r.err }

// errAttemptTimeout is the cancel cause when Config.Timeout elapses.
var errAttemptTimeout = errors.New("model: request timed out")

// Complete sends req and returns the assistant's reply. Streaming deltas go
// to h (which may be nil) as they arrive; for a JSON reply the whole text is
// reported as one delta. Errors are *APIError, wrap one of the sentinels,
// or are ctx's error.
func (c *Client) Complete(ctx context.Context, req Request, h Handler) (*Response, error) {
	if c.cfg.BaseURL == "" {
		return nil, errors.New("model: no base URL configured")
	}
	body, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("model: encode request: %w", err)
	}
	if h == nil {
		h = nopHandler{}
	}
	for attempt := 0; ; attempt++ {
		resp, err := c.attempt(ctx, body, req.Stream, h)
		var re *retryable
		if err == nil || !errors.As(err, &re) {
			return resp, err
		}
		if attempt >= c.cfg.MaxRetries {
			return nil, re.err
		}
		if err := sleep(ctx, c.delay(attempt, re.after)); err != nil {
			return nil, err
		}
	}
}

// delay is the backoff before retry number attempt+1: base·2^attempt with
// jitter in [d/2, d], at least the server's Retry-After (capped).
func (c *Client) delay(attempt int, after time.Duration) time.Duration {
	d := c.cfg.Backoff << attempt
	d = d/2 + rand.N(d/2+1)
	if after > d {
		d = min(after, maxRetryAfter)
	}
	return d
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// attempt performs one HTTP exchange.
func (c *Client) attempt(parent context.Context, body []byte, stream bool, h Handler) (*Response, error) {
	ctx, cancel := context.WithCancelCause(parent)
	defer cancel(nil)
	ctx, stop := context.WithTimeoutCause(ctx, c.cfg.Timeout, errAttemptTimeout)
	defer stop()
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("model: build request: %w", err)
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "text/event-stream, application/json")
	if c.cfg.APIKey != "" {
		hreq.Header.Set("Authorization", "Bearer "+c.cfg.APIKey)
	}
	res, err := c.http.Do(hreq)
	if err != nil {
		return nil, c.cutErr(parent, ctx, err, false)
	}
	defer res.Body.Close()
	faults.Hit(faults.ModelAfterRequest)
	if res.StatusCode < 200 || res.StatusCode > 299 {
		return nil, c.statusErr(res)
	}
	if isSSE(res.Header.Get("Content-Type"), stream) {
		return c.readStream(parent, ctx, cancel, res.Body, h)
	}
	return c.readJSON(parent, ctx, res, h)
}

// isSSE decides how to read a 2xx body: by its Content-Type when it says
// event-stream or JSON, else by what was asked for.
func isSSE(contentType string, stream bool) bool {
	switch {
	case strings.HasPrefix(contentType, "text/event-stream"):
		return true
	case strings.Contains(contentType, "json"):
		return false
	default:
		return stream
	}
}

// statusErr turns a non-2xx reply into an *APIError.
func (c *Client) statusErr(res *http.Response) error {
	b, _ := io.ReadAll(io.LimitReader(res.Body, maxErrorBody))
	e := parseAPIError(res.StatusCode, b, c.cfg.APIKey)
	if !e.Retryable {
		return e
	}
	return &retryable{err: e, after: time.Duration(retryAfter(res.Header)) * time.Second}
}

// cutErr classifies a transport error. started reports whether any body
// byte was received; before that, the error is retryable.
func (c *Client) cutErr(parent, ctx context.Context, err error, started bool) error {
	if parent.Err() != nil {
		return parent.Err()
	}
	cause := context.Cause(ctx)
	var out error
	switch {
	case errors.Is(cause, ErrIdleTimeout):
		out = fmt.Errorf("%w: no data for %s", ErrIdleTimeout, c.cfg.IdleTimeout)
	case errors.Is(cause, errAttemptTimeout):
		return fmt.Errorf("%w after %s", errAttemptTimeout, c.cfg.Timeout)
	case started:
		// Not %w: the transport error's text carries the endpoint URL.
		return fmt.Errorf("%w (%s)", ErrStreamIncomplete, transportClass(err))
	default:
		out = fmt.Errorf("%w (%s)", ErrUnreachable, transportClass(err))
	}
	if started {
		return fmt.Errorf("%w: %w", ErrStreamIncomplete, out)
	}
	return &retryable{err: out}
}

// readJSON decodes a non-streaming reply.
func (c *Client) readJSON(parent, ctx context.Context, res *http.Response, h Handler) (*Response, error) {
	b, err := io.ReadAll(io.LimitReader(res.Body, int64(c.cfg.MaxLineBytes)+1))
	if err != nil {
		return nil, c.cutErr(parent, ctx, err, len(b) > 0)
	}
	if len(b) > c.cfg.MaxLineBytes {
		return nil, fmt.Errorf("%w: body exceeds %d bytes", ErrTooLarge, c.cfg.MaxLineBytes)
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, &retryable{err: fmt.Errorf("%w: empty body", ErrMalformed)}
	}
	resp, err := decodeCompletion(b, res.StatusCode, c.cfg.APIKey)
	if err != nil {
		return nil, err
	}
	if resp.Message.Reasoning != "" {
		h.Reasoning(resp.Message.Reasoning)
	}
	if resp.Message.Content != "" {
		h.Text(resp.Message.Content)
	}
	return resp, nil
}

type nopHandler struct{}

func (nopHandler) Text(string)      {}
func (nopHandler) Reasoning(string) {}
