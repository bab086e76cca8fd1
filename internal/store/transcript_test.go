package store_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/hermes-gateway/hermes/internal/store"
)

func TestImportMessagesAndPages(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, epoch := openEpoch(t)
	var rows []store.Message
	for i := range 7 {
		rows = append(rows, store.Message{Role: "user", Content: fmt.Sprintf("m%d", i), CreatedAtMs: int64(100 + i)})
	}
	mustTx(t, s, epoch, func(tx *store.Tx) error {
		if err := tx.InsertSession(logical("local-imp")); err != nil {
			return err
		}
		return tx.ImportMessages("local-imp", rows)
	})
	sess, _ := s.Session(ctx, "local-imp")
	if sess.MessageCount != 7 {
		t.Errorf("message_count after import: %d", sess.MessageCount)
	}
	var got []string
	before := int64(0)
	for pages := 0; ; pages++ {
		page, more, total, err := s.MessagesPage(ctx, "local-imp", before, 3)
		if err != nil || total != 7 || pages > 3 {
			t.Fatalf("page %d: %v, total %d", pages, err, total)
		}
		var texts []string
		for _, m := range page {
			texts = append(texts, m.Content)
		}
		got = append(texts, got...)
		if !more {
			break
		}
		before = page[0].ID
	}
	if fmt.Sprint(got) != "[m0 m1 m2 m3 m4 m5 m6]" {
		t.Errorf("pages joined = %v", got)
	}
	if page, more, _, _ := s.MessagesPage(ctx, "local-imp", 0, 7); len(page) != 7 || more {
		t.Errorf("one page of exactly all: %d, more %v", len(page), more)
	}
}

// TestImportMessagesAllOrNothing: a message the table refuses rolls the
// whole import back, the session row with it.
func TestImportMessagesAllOrNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, epoch := openEpoch(t)
	err := s.InTx(ctx, epoch, func(tx *store.Tx) error {
		if err := tx.InsertSession(logical("local-bad")); err != nil {
			return err
		}
		return tx.ImportMessages("local-bad", []store.Message{{Role: "user", Content: "ok"}, {Role: "robot"}})
	})
	if err == nil {
		t.Fatal("a bad role was imported")
	}
	if _, err := s.Session(ctx, "local-bad"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("the session survived the failed import: %v", err)
	}
}

func TestSessionsByPrefix(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, epoch := openEpoch(t)
	for _, id := range []string{"local-abcdef01aa", "local-abcdef01bb", "local-abcdef02cc", "local-abcdef0%zz"} {
		addSession(t, s, epoch, id)
	}
	mustTx(t, s, epoch, func(tx *store.Tx) error { // a physical child never matches
		child := logical("local-abcdef01cc")
		child.ChatID = "local-abcdef01aa"
		return tx.InsertSession(child)
	})
	for prefix, want := range map[string]int{
		"local-abcdef01": 2, "local-abcdef0": 4, "local-abcdef01aa": 1, "local-abcdef0%": 1, "local-abcdef03": 0, "local-abcdef0_": 0,
	} {
		rows, err := s.SessionsByPrefix(ctx, prefix, 10)
		if err != nil || len(rows) != want {
			t.Errorf("SessionsByPrefix(%q) = %d rows, %v; want %d", prefix, len(rows), err, want)
		}
	}
	if rows, _ := s.SessionsByPrefix(ctx, "local-abcdef0", 3); len(rows) != 3 {
		t.Errorf("limit 3: %d rows", len(rows))
	}
}
