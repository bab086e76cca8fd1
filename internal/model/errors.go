package model

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
)

// Sentinel errors. Callers fail the turn on any of them; none is retried
// once output has reached the Handler.
var (
	// ErrStreamIncomplete: the stream ended or was reset after output
	// started and before [DONE] or a finish_reason. The partial reply is
	// lost; the caller fails the turn (a tool is never re-run).
	ErrStreamIncomplete = errors.New("model: stream ended before completion")
	// ErrIdleTimeout: no stream data arrived for Config.IdleTimeout.
	ErrIdleTimeout = errors.New("model: stream idle timeout")
	// ErrMalformed: the server sent a body or SSE event that is not valid.
	ErrMalformed = errors.New("model: malformed response")
	// ErrTooLarge: one SSE line or a JSON body exceeded Config.MaxLineBytes.
	ErrTooLarge = errors.New("model: response line too large")
)

// ErrUnreachable: the request did not get a reply (connection refused,
// DNS, TLS, reset before any byte). Its text names the class of failure,
// never the endpoint URL.
var ErrUnreachable = errors.New("model: endpoint unreachable")

// APIError is an HTTP or API-level error reported by the server. Retryable
// is true for 408, 429 and 5xx; Complete retries those only before output.
//
// Error() is public-safe: the status and the (sanitized) type and code,
// never Message, which is upstream text that may carry URLs, account
// details or echoed input. Message is for the log only (LogValue).
type APIError struct {
	Status  int // HTTP status; 0 for an error event inside a stream
	Type    string
	Code    string
	Message string
	// Retryable reports whether the same request may succeed later.
	Retryable bool
}

func (e *APIError) Error() string {
	var b strings.Builder
	b.WriteString("model: ")
	if e.Status != 0 {
		fmt.Fprintf(&b, "HTTP %d", e.Status)
	} else {
		b.WriteString("stream error")
	}
	if t := strings.Trim(label(e.Type)+" "+label(e.Code), " "); t != "" {
		fmt.Fprintf(&b, " (%s)", t)
	}
	return b.String()
}

// LogValue includes the upstream message for the gateway log (whose
// handler scrubs URLs and key-looking strings).
func (e *APIError) LogValue() slog.Value {
	return slog.GroupValue(slog.Int("status", e.Status), slog.String("type", label(e.Type)),
		slog.String("code", label(e.Code)), slog.String("message", string(truncate([]byte(e.Message), 512))))
}

// label keeps an upstream type or code only if it is a short identifier
// (server_error, rate_limit_exceeded, 429); anything else is dropped.
func label(s string) string {
	if len(s) > 64 {
		return ""
	}
	for _, r := range s {
		ok := r == '_' || r == '-' || r == '.' || (r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z')
		if !ok {
			return ""
		}
	}
	return s
}

// transportClass names a transport failure without its URL or addresses.
func transportClass(err error) string {
	var dns *net.DNSError
	var op *net.OpError
	switch {
	case errors.As(err, &dns):
		return "host name not resolved"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return "connection reset"
	case errors.As(err, &op) && op.Timeout():
		return "timed out"
	case strings.Contains(err.Error(), "tls:") || strings.Contains(err.Error(), "x509:"):
		return "TLS handshake failed"
	}
	return "transport error"
}

// retryableStatus reports whether an HTTP status is worth a retry.
func retryableStatus(status int) bool {
	return status == http.StatusRequestTimeout || status == http.StatusTooManyRequests || status >= 500
}

// errorBody matches {"error":{...}} (OpenAI, vLLM, llama.cpp) and
// {"error":"text"} (Ollama).
type errorBody struct {
	Error json.RawMessage `json:"error"`
}

type errorObject struct {
	Message string          `json:"message"`
	Type    string          `json:"type"`
	Code    json.RawMessage `json:"code"` // string or number
}

// parseAPIError builds an APIError from a status and a (possibly empty or
// foreign) body. key is redacted from the message in case a server echoes it.
func parseAPIError(status int, body []byte, key string) *APIError {
	e := &APIError{Status: status, Retryable: status == 0 || retryableStatus(status)}
	var eb errorBody
	if json.Unmarshal(body, &eb) == nil && len(eb.Error) > 0 {
		var obj errorObject
		var text string
		switch {
		case json.Unmarshal(eb.Error, &text) == nil:
			e.Message = text
		case json.Unmarshal(eb.Error, &obj) == nil:
			e.Message, e.Type, e.Code = obj.Message, obj.Type, rawCode(obj.Code)
		}
	}
	if e.Message == "" && status != 0 {
		e.Message = strings.TrimSpace(string(truncate(body, 512)))
		if e.Message == "" {
			e.Message = http.StatusText(status)
		}
	}
	if key != "" {
		e.Message = strings.ReplaceAll(e.Message, key, "[redacted]")
	}
	return e
}

func rawCode(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String()
	}
	return ""
}

func truncate(b []byte, n int) []byte {
	if len(b) > n {
		return b[:n]
	}
	return b
}

// retryAfter parses a Retry-After header in seconds; 0 when absent.
func retryAfter(h http.Header) int {
	n, err := strconv.Atoi(strings.TrimSpace(h.Get("Retry-After")))
	if err != nil || n < 0 {
		return 0
	}
	return n
}
