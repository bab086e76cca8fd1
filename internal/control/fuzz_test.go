package control

import (
	"encoding/json"
	"log/slog"
	"os"
	"strings"
	"testing"
)

// FuzzHandleLine feeds arbitrary request lines to the dispatcher: it must
// answer every line with a well-formed protocol-1 reply and never panic;
// only session-ticket replies may carry a ticket.
func FuzzHandleLine(f *testing.F) {
	for _, seed := range []string{
		`{"protocol":1,"id":1,"verb":"identify"}`,
		`{"protocol":1,"id":"a","verb":"status","params":{}}`,
		`{"protocol":1,"id":2,"verb":"session-ticket","params":{"profile_id":"profile-a","instance_id":"inst-1","purpose":"interactive"}}`,
		`{"protocol":1,"id":3,"verb":"session-ticket","params":{"purpose":"interactive","purpose":"dashboard-login"}}`,
		`{"protocol":1,"ID":1,"verb":"identify"}`,
		`{"protocol":1e400}`, `[]`, `null`, `{`, "",
	} {
		f.Add([]byte(seed))
	}
	s := &Server{h: newFakeHandler(), log: slog.New(slog.DiscardHandler), uid: os.Getuid()}
	p := peer{UID: os.Getuid(), PID: os.Getpid()}
	f.Fuzz(func(t *testing.T, line []byte) {
		rep := s.handleLine(t.Context(), p, line)
		if rep.Protocol != ProtocolVersion || rep.OK == (rep.Error != "") {
			t.Fatalf("bad reply %+v", rep)
		}
		b, err := json.Marshal(rep)
		if err != nil {
			t.Fatalf("reply does not marshal: %v", err)
		}
		if rep.OK && strings.Contains(string(b), `"ticket"`) && !strings.Contains(string(line), VerbSessionTicket) {
			t.Fatalf("ticket in a reply to %q", line)
		}
	})
}
