package policy

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	gt "github.com/hermes-gateway/hermes/internal/gatewaytest"
	"github.com/hermes-gateway/hermes/internal/modeltest"
	"github.com/hermes-gateway/hermes/internal/protocol"
	"github.com/hermes-gateway/hermes/internal/rpc"
)

// TestCompressionFailureHygiene (issue 10 item 4): a compression that
// fails at the model (HTTP 500 whose body names an endpoint URL) is
// model_unavailable, and the URL is in no error detail, no event
// (session.events.since from the start) and no log line.
func TestCompressionFailureHygiene(t *testing.T) {
	t.Parallel()
	f := gt.NewFixture(t, gt.Config{Extra: "compression: {enabled: true, threshold: 0.99, protect_first_n: 1, protect_last_n: 1}\n"})
	host := canary("leak") + ".example"
	leakURL := "https://admin:" + canary("pw") + "@" + host + "/v1/chat/completions?sig=" + canary("sig")
	body := fmt.Sprintf(`{"error":{"message":"upstream %s is overloaded","type":"server_error"}}`, leakURL)
	var fail atomic.Bool
	f.Model.Handle(func(r *modeltest.Request) modeltest.Reply {
		if fail.Load() {
			return modeltest.Reply{Status: 500, ErrorBody: body}
		}
		return f.Turns.Reply(r)
	})
	d := f.Start()
	ctx := gt.Context(t, wait)
	v := d.View(ctx)
	cwd := gt.Cwd(t)
	snap := gt.Create(t, v, protocol.SessionCreateParams{RequestID: gt.Ptr("c"), Cwd: &cwd, Toolsets: &[]string{}})
	for _, id := range []string{"q1", "q2", "q3"} {
		if mc := turn(t, v, snap.SessionID, id, "question "+id, nil); mc.Outcome != protocol.OutcomeCompleted {
			t.Fatalf("%s: %q", id, mc.Outcome)
		}
	}
	rev := gt.Resume(t, v, snap.SessionID).Revision
	fail.Store(true)
	before := len(f.Model.Requests())
	_, err := v.MutateSession(ctx, protocol.SessionMutateParams{SessionID: snap.SessionID, RequestID: "compress-1",
		ExpectedRevision: rev, Operation: "compress"})
	if len(f.Model.Requests()) == before {
		t.Fatal("the compression never asked the model")
	}
	var ce *rpc.CallError
	if !errors.As(err, &ce) {
		t.Fatalf("compress against a failing model: %v, want an error", err)
	}
	if ce.Reason != protocol.ReasonModelUnavailable {
		t.Errorf("compress: reason %q, want %q", ce.Reason, protocol.ReasonModelUnavailable)
	}
	raw, _ := json.Marshal(ce)
	noLeak(t, "the compress error", ce.Message+" "+ce.Detail+" "+string(raw), host, leakURL)
	// A turn while the model fails: its failure event is clean too.
	if mc := turn(t, v, snap.SessionID, "q4", "question q4", nil); mc.Outcome != protocol.OutcomeFailed {
		t.Errorf("a turn against the failing model: %q, want failed", mc.Outcome)
	}

	var all []protocol.Event
	var last int64
	for {
		res, err := v.EventsSince(ctx, protocol.EventsSinceParams{SessionID: snap.SessionID, ReplayEpoch: &snap.ReplayEpoch, LastSequence: &last})
		if err != nil {
			t.Fatalf("session.events.since: %v", err)
		}
		if res.SnapshotRequired {
			t.Fatal("session.events.since: snapshot_required")
		}
		all = append(all, res.Events...)
		if len(res.Events) > 0 {
			last = res.Events[len(res.Events)-1].Seq
		}
		if !res.More || len(res.Events) == 0 {
			break
		}
	}
	if len(all) == 0 {
		t.Fatal("session.events.since returned no event")
	}
	for _, ev := range append(all, v.Events()...) {
		b, _ := json.Marshal(ev)
		noLeak(t, "a "+ev.Type+" event", string(b), host, leakURL)
	}
	if code := d.Stop(); code != 0 {
		t.Errorf("stop: exit %d", code)
	}
	logText, err := os.ReadFile(filepath.Join(f.Home, "logs", "gateway.log"))
	if err != nil {
		t.Fatal(err)
	}
	noLeak(t, "logs/gateway.log", string(logText), host, leakURL)
	noLeak(t, "the daemon's stderr", d.Output(), host, leakURL)
}

func noLeak(t *testing.T, where, s string, leaks ...string) {
	t.Helper()
	for _, l := range leaks {
		if strings.Contains(s, l) {
			i := strings.Index(s, l)
			t.Errorf("%s holds %q: …%s…", where, l, s[max(0, i-200):min(len(s), i+len(l)+40)])
		}
	}
	// Any part of the upstream URL: credentials and the signed query.
	for _, l := range leaks {
		if u, ok := strings.CutPrefix(l, "https://"); ok {
			for _, part := range strings.FieldsFunc(u, func(r rune) bool { return strings.ContainsRune(":@/?=", r) }) {
				if len(part) > 12 && strings.Contains(s, part) {
					t.Errorf("%s holds %q of the upstream URL", where, part)
				}
			}
		}
	}
}
