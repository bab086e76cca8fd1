package store_test

import (
	"context"
	"testing"

	"github.com/hermes-gateway/hermes/internal/store"
)

func TestHookConsent(t *testing.T) {
	t.Parallel()
	s, epoch := openEpoch(t)
	ctx := context.Background()
	if _, ok, err := s.HookConsentDigest(ctx, "/p"); ok || err != nil {
		t.Fatalf("before any consent: ok=%v err=%v", ok, err)
	}
	for _, d := range []string{string(make64('a')), string(make64('b'))} {
		err := s.InTx(ctx, epoch, func(tx *store.Tx) error {
			return tx.PutHookConsent(store.HookConsent{Cwd: "/p", Digest: d, CommandsJSON: "[]", AcceptedBy: "u", AcceptedAtMs: 1})
		})
		if err != nil {
			t.Fatal(err)
		}
		got, ok, err := s.HookConsentDigest(ctx, "/p")
		if !ok || err != nil || got != d {
			t.Fatalf("digest = %q %v %v; want %q", got, ok, err, d)
		}
	}
	err := s.InTx(ctx, epoch, func(tx *store.Tx) error {
		return tx.PutHookConsent(store.HookConsent{Cwd: "/p", Digest: "short", AcceptedBy: "u"})
	})
	if err == nil {
		t.Fatal("a digest that is not 64 hex characters was accepted")
	}
}

func make64(c byte) []byte {
	b := make([]byte, 64)
	for i := range b {
		b[i] = c
	}
	return b
}
