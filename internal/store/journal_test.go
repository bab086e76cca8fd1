package store_test

import (
	"context"
	"errors"
	"strconv"
	"testing"

	"github.com/hermes-gateway/hermes/internal/store"
)

func appendEvents(t *testing.T, s *store.Store, epoch int64, session string, n int) []store.Event {
	t.Helper()
	var out []store.Event
	mustTx(t, s, epoch, func(tx *store.Tx) error {
		for i := range n {
			e, err := tx.AppendEvent(session, store.Event{Type: "message.start", PayloadJSON: `{"i":` + strconv.Itoa(i) + `}`})
			if err != nil {
				return err
			}
			out = append(out, e)
		}
		return nil
	})
	return out
}

func TestAppendEventSeqAcrossReopen(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, path := openTemp(t)
	e1, _, _ := s.BeginEpoch(ctx, "a")
	addSession(t, s, e1, "local-a")
	addSession(t, s, e1, "local-b")
	first := appendEvents(t, s, e1, "local-a", 3)
	appendEvents(t, s, e1, "local-b", 2) // seqs are per session
	sess, _ := s.Session(ctx, "local-a")
	for i, e := range first {
		if e.Seq != int64(i+1) || e.SessionID != "local-a" || e.AuthorityEpoch != e1 ||
			e.ReplayEpoch != sess.ReplayEpoch || e.CreatedAtMs == 0 {
			t.Errorf("event %d = %+v", i, e)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s2.Close() })
	e2, _, _ := s2.BeginEpoch(ctx, "b")
	var got store.Event
	mustTx(t, s2, e2, func(tx *store.Tx) (err error) {
		got, err = tx.AppendEvent("local-a", store.Event{Type: "session.info", PayloadJSON: `{}`,
			ExecutionGeneration: 4, AdmissionID: "adm"})
		return err
	})
	if got.Seq != 4 || got.AuthorityEpoch != e2 {
		t.Errorf("after reopen AppendEvent = %+v, want seq 4 epoch %d", got, e2)
	}
	// A rolled-back append does not consume a seq.
	_ = s2.InTx(ctx, e2, func(tx *store.Tx) error {
		if _, err := tx.AppendEvent("local-a", store.Event{Type: "x", PayloadJSON: `{}`}); err != nil {
			return err
		}
		return errors.New("abort")
	})
	next := appendEvents(t, s2, e2, "local-a", 1)
	if next[0].Seq != 5 {
		t.Errorf("seq after rollback = %d, want 5", next[0].Seq)
	}
	all, more, err := s2.EventsSince(ctx, "local-a", 0, 0)
	if err != nil || more || len(all) != 5 {
		t.Fatalf("EventsSince = %d events, more %v, %v", len(all), more, err)
	}
	if all[3].ExecutionGeneration != 4 || all[3].AdmissionID != "adm" || all[0].ExecutionGeneration != 0 || all[0].AdmissionID != "" {
		t.Errorf("optional fields round trip: %+v / %+v", all[3], all[0])
	}
	if _, err := appendTo(s2, e2, "ghost"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("AppendEvent(ghost) = %v, want ErrNotFound", err)
	}
}

func appendTo(s *store.Store, epoch int64, session string) (store.Event, error) {
	var e store.Event
	err := s.InTx(context.Background(), epoch, func(tx *store.Tx) (err error) {
		e, err = tx.AppendEvent(session, store.Event{Type: "x", PayloadJSON: `{}`})
		return err
	})
	return e, err
}

func TestEventsSincePaging(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, epoch := openEpoch(t)
	addSession(t, s, epoch, "local-a")
	appendEvents(t, s, epoch, "local-a", 7)
	var seqs []int64
	after := int64(0)
	for page := 0; ; page++ {
		events, more, err := s.EventsSince(ctx, "local-a", after, 3)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range events {
			seqs = append(seqs, e.Seq)
		}
		if wantMore := page < 2; more != wantMore {
			t.Errorf("page %d: more = %v, want %v", page, more, wantMore)
		}
		if !more {
			break
		}
		after = events[len(events)-1].Seq
	}
	if len(seqs) != 7 {
		t.Fatalf("paged seqs = %v", seqs)
	}
	for i, seq := range seqs {
		if seq != int64(i+1) {
			t.Errorf("seqs = %v, want 1..7", seqs)
			break
		}
	}
	if events, more, err := s.EventsSince(ctx, "local-a", 6, 1); err != nil || more || len(events) != 1 {
		t.Errorf("exact last page: %d events, more %v, %v", len(events), more, err)
	}
	if events, _, err := s.EventsSince(ctx, "ghost", 0, 10); err != nil || len(events) != 0 {
		t.Errorf("EventsSince(ghost) = %v, %v", events, err)
	}
}

func TestMessages(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, epoch := openEpoch(t)
	old := logical("local-a")
	old.StartedAtMs = 50
	mustTx(t, s, epoch, func(tx *store.Tx) error { return tx.InsertSession(old) })
	addSession(t, s, epoch, "local-b")
	mustTx(t, s, epoch, func(tx *store.Tx) error {
		for i := range 5 {
			m, err := tx.AppendMessage(store.Message{SessionID: "local-a", Role: "user", Content: "m" + strconv.Itoa(i), CreatedAtMs: int64(100 + i)})
			if err != nil {
				return err
			}
			if m.ID == 0 {
				t.Error("AppendMessage did not set ID")
			}
		}
		_, err := tx.AppendMessage(store.Message{SessionID: "local-b", Role: "assistant", Content: "other",
			ToolCallsJSON: `[{"id":"c1"}]`, Reasoning: "r", FinishReason: "tool_calls"})
		return err
	})
	msgs, total, err := s.Messages(ctx, "local-a", 2)
	if err != nil || total != 5 || len(msgs) != 2 || msgs[0].Content != "m3" || msgs[1].Content != "m4" {
		t.Errorf("Messages(limit 2) = %+v, %d, %v; want the last two in order", msgs, total, err)
	}
	if msgs, total, _ := s.Messages(ctx, "local-a", 0); len(msgs) != 5 || total != 5 {
		t.Errorf("Messages(no limit) = %d of %d", len(msgs), total)
	}
	sess, _ := s.Session(ctx, "local-a")
	if sess.MessageCount != 5 || sess.LastActivityMs != 104 {
		t.Errorf("session counters = %d messages, last activity %d", sess.MessageCount, sess.LastActivityMs)
	}
	mustTx(t, s, epoch, func(tx *store.Tx) error {
		all, err := tx.Messages("local-b")
		if err != nil || len(all) != 1 || all[0].ToolCallsJSON != `[{"id":"c1"}]` || all[0].Reasoning != "r" || all[0].FinishReason != "tool_calls" {
			t.Errorf("tx.Messages(local-b) = %+v, %v", all, err)
		}
		return nil
	})
	err = s.InTx(ctx, epoch, func(tx *store.Tx) error {
		_, err := tx.AppendMessage(store.Message{SessionID: "ghost", Role: "user"})
		return err
	})
	if !errors.Is(err, store.ErrNotFound) {
		t.Errorf("AppendMessage(ghost) = %v, want ErrNotFound", err)
	}
}

func TestListSessions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, epoch := openEpoch(t)
	rows := []store.Session{
		{ID: "l1", ChatID: "l1", Source: "cli", StartedAtMs: 100, Title: "alpha"},
		{ID: "l2", ChatID: "l2", Source: "tool", StartedAtMs: 200},
		{ID: "l3", ChatID: "l3", Source: "oneshot", StartedAtMs: 300},
		{ID: "l4", ChatID: "l4", Source: "tui", StartedAtMs: 400, Hidden: true},
		{ID: "l5", ChatID: "l5", Source: "gui", StartedAtMs: 500, Archived: true, Title: "alpha"},
		{ID: "p1", ChatID: "l1", Source: "cli", StartedAtMs: 600, ParentSessionID: "l1"}, // physical child
	}
	mustTx(t, s, epoch, func(tx *store.Tx) error {
		for _, r := range rows {
			if err := tx.InsertSession(r); err != nil {
				return err
			}
		}
		return nil
	})
	ids := func(f store.ListFilter) []string {
		got, err := s.ListSessions(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, g := range got {
			out = append(out, g.ID)
		}
		return out
	}
	tests := []struct {
		name string
		f    store.ListFilter
		want string
	}{
		{"default hides hidden", store.ListFilter{}, "[l5 l3 l2 l1]"},
		{"include hidden", store.ListFilter{IncludeHidden: true}, "[l5 l4 l3 l2 l1]"},
		{"stored view", store.ListFilter{ExcludeArchived: true, ExcludeSources: []string{"tool", "oneshot"}}, "[l1]"},
		{"limit", store.ListFilter{Limit: 2}, "[l5 l3]"},
		{"title", store.ListFilter{Title: "alpha"}, "[l5 l1]"},
	}
	for _, tt := range tests {
		if got := fmtIDs(ids(tt.f)); got != tt.want {
			t.Errorf("%s: %s, want %s", tt.name, got, tt.want)
		}
	}
	byTitle, err := s.SessionByTitle(ctx, "alpha")
	if err != nil || byTitle.ID != "l5" {
		t.Errorf("SessionByTitle = %s, %v; want newest l5", byTitle.ID, err)
	}
	if _, err := s.SessionByTitle(ctx, "nope"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("SessionByTitle(nope) = %v, want ErrNotFound", err)
	}
}

func fmtIDs(ids []string) string {
	out := "["
	for i, id := range ids {
		if i > 0 {
			out += " "
		}
		out += id
	}
	return out + "]"
}
