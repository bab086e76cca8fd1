package gatewaytest

import (
	"net/http"
	"sync"

	"github.com/hermes-gateway/hermes/internal/modeltest"
)

// Turns scripts the fake model by prompt, statelessly: a request is
// answered from the replies set for the text of its last user message, the
// step being the number of assistant messages after it (0 = the turn's
// first request). The same request always gets the same reply, also after
// a daemon restart, and concurrent sessions never steal each other's
// replies. A step past the list, or an unknown prompt, gets the final
// answer "done".
type Turns struct {
	mu       sync.Mutex
	byPrompt map[string][]modeltest.Reply // guarded by mu
}

// NewTurns returns an empty script.
func NewTurns() *Turns {
	return &Turns{byPrompt: map[string][]modeltest.Reply{}}
}

// Set scripts the turn started by prompt.
func (s *Turns) Set(prompt string, replies ...modeltest.Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.byPrompt[prompt] = replies
}

// Reply is the modeltest.Server Handle function.
func (s *Turns) Reply(r *modeltest.Request) modeltest.Reply {
	prompt, step := Step(r)
	s.mu.Lock()
	defer s.mu.Unlock()
	if rs, ok := s.byPrompt[prompt]; ok && step < len(rs) {
		return rs[step]
	}
	return modeltest.Text("done")
}

// Step returns the last user message of r and how many assistant messages
// follow it.
func Step(r *modeltest.Request) (prompt string, step int) {
	last := -1
	for i, m := range r.Messages {
		if m.Role == "user" {
			last = i
		}
	}
	if last < 0 {
		return "", 0
	}
	for _, m := range r.Messages[last+1:] {
		if m.Role == "assistant" {
			step++
		}
	}
	return r.Messages[last].Content, step
}

// FirstRequests counts the requests that started a turn for prompt (I1:
// at most one per admission).
func FirstRequests(m *modeltest.Server, prompt string) int {
	n := 0
	for _, r := range m.Requests() {
		if p, step := Step(r); p == prompt && step == 0 {
			n++
		}
	}
	return n
}

// RequestsFor returns the requests of the turns started by prompt.
func RequestsFor(m *modeltest.Server, prompt string) []*modeltest.Request {
	var out []*modeltest.Request
	for _, r := range m.Requests() {
		if p, _ := Step(r); p == prompt {
			out = append(out, r)
		}
	}
	return out
}

// Failing is a reply with HTTP 500 (F22).
func Failing() modeltest.Reply {
	return modeltest.Reply{Status: http.StatusInternalServerError}
}
