package model

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
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

// APIError is an HTTP or API-level error reported by the server. Retryable
// is true for 408, 429 and 5xx; Complete retries those only before output.
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
	if e.Type != "" || e.Code != "" {
		fmt.Fprintf(&b, " (%s)", strings.Trim(e.Type+" "+e.Code, " "))
	}
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	return b.String()
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
