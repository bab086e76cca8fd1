package auth

import (
	"encoding/base64"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

const (
	testProfile  = "profile-a"
	testInstance = "inst-1"
)

// fakeClock is a manually advanced clock.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newFakeClock() *fakeClock { return &fakeClock{now: time.Unix(1_700_000_000, 0)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func newTestTickets(opts ...Option) (*Tickets, *fakeClock) {
	c := newFakeClock()
	return NewTickets(testProfile, testInstance, append([]Option{WithClock(c.Now)}, opts...)...), c
}

func mustMint(t testing.TB, s *Tickets, purpose string) string {
	t.Helper()
	tk, err := s.Mint("uid:1000", testProfile, testInstance, purpose)
	if err != nil {
		t.Fatalf("Mint: %v", err)
	}
	return tk
}

func TestTicketShape(t *testing.T) {
	t.Parallel()
	s, _ := newTestTickets()
	tk := mustMint(t, s, PurposeInteractive)
	raw, err := base64.RawURLEncoding.DecodeString(tk)
	if err != nil || len(raw) != 32 {
		t.Fatalf("ticket decodes to %d bytes (err %v)", len(raw), err)
	}
	if tk2 := mustMint(t, s, PurposeInteractive); tk2 == tk {
		t.Fatal("two mints returned the same ticket")
	}
}

func TestRedeemSingleUse(t *testing.T) {
	t.Parallel()
	s, _ := newTestTickets()
	tk := mustMint(t, s, PurposeInteractive)
	g, err := s.Redeem(tk, PurposeInteractive)
	if err != nil {
		t.Fatalf("first Redeem: %v", err)
	}
	want := Grant{Subject: "uid:1000", ProfileID: testProfile, InstanceID: testInstance, Purpose: PurposeInteractive}
	if g != want {
		t.Errorf("grant = %+v, want %+v", g, want)
	}
	if g.Caps() != InteractiveCaps() {
		t.Errorf("grant caps = %v", g.Caps())
	}
	_, replayErr := s.Redeem(tk, PurposeInteractive)
	_, unknownErr := s.Redeem("not-a-ticket", PurposeInteractive)
	if !errors.Is(replayErr, ErrBadTicket) || replayErr != unknownErr {
		t.Errorf("replay err %v, unknown err %v: want the same ErrBadTicket", replayErr, unknownErr)
	}
	if n := s.Outstanding(); n != 0 {
		t.Errorf("outstanding = %d", n)
	}
}

func TestRedeemTTL(t *testing.T) {
	t.Parallel()
	s, clock := newTestTickets()
	fresh := mustMint(t, s, PurposeInteractive)
	late := mustMint(t, s, PurposeInteractive)

	clock.Advance(DefaultTicketTTL - time.Nanosecond)
	if _, err := s.Redeem(fresh, PurposeInteractive); err != nil {
		t.Fatalf("redeem just before TTL: %v", err)
	}
	clock.Advance(time.Nanosecond)
	if _, err := s.Redeem(late, PurposeInteractive); !errors.Is(err, ErrBadTicket) {
		t.Fatalf("redeem at TTL: %v, want ErrBadTicket", err)
	}
	if n := s.Outstanding(); n != 0 {
		t.Errorf("expired ticket kept after redeem: outstanding = %d", n)
	}
}

func TestRedeemPurposeMismatchBurnsTicket(t *testing.T) {
	t.Parallel()
	s, _ := newTestTickets()
	tk := mustMint(t, s, PurposeDashboardLogin)
	if _, err := s.Redeem(tk, PurposeInteractive); !errors.Is(err, ErrBadTicket) {
		t.Fatalf("wrong purpose: %v", err)
	}
	if _, err := s.Redeem(tk, PurposeDashboardLogin); !errors.Is(err, ErrBadTicket) {
		t.Fatalf("ticket survived a wrong-purpose presentation: %v", err)
	}
}

func TestRedeemMalformed(t *testing.T) {
	t.Parallel()
	s, _ := newTestTickets()
	tk := mustMint(t, s, PurposeInteractive)
	for _, bad := range []string{"", strings.Repeat("A", MaxTicketLen+1), tk + " ", tk[:len(tk)-1]} {
		if _, err := s.Redeem(bad, PurposeInteractive); !errors.Is(err, ErrBadTicket) {
			t.Errorf("Redeem(%d chars) = %v", len(bad), err)
		}
	}
	if _, err := s.Redeem(tk, PurposeInteractive); err != nil {
		t.Errorf("near-miss presentations consumed the real ticket: %v", err)
	}
}

func TestMintRefusals(t *testing.T) {
	t.Parallel()
	s, _ := newTestTickets()
	cases := []struct {
		name                                string
		subject, profile, instance, purpose string
		want                                error
	}{
		{"foreign profile", "uid:1", "profile-b", testInstance, PurposeInteractive, ErrForeignProfile},
		{"stale instance", "uid:1", testProfile, "inst-0", PurposeInteractive, ErrStaleInstance},
		{"unknown purpose", "uid:1", testProfile, testInstance, "worker-adoption", ErrUnknownPurpose},
		{"empty subject", "", testProfile, testInstance, PurposeInteractive, ErrNoSubject},
	}
	for _, c := range cases {
		tk, err := s.Mint(c.subject, c.profile, c.instance, c.purpose)
		if !errors.Is(err, c.want) || tk != "" {
			t.Errorf("%s: Mint = %q, %v; want %v", c.name, tk, err, c.want)
		}
	}
	if n := s.Outstanding(); n != 0 {
		t.Errorf("refused mints stored %d entries", n)
	}
}

func TestNewInstanceRejectsOldTickets(t *testing.T) {
	t.Parallel()
	old, _ := newTestTickets()
	tk := mustMint(t, old, PurposeInteractive)
	next := NewTickets(testProfile, "inst-2")
	if _, err := next.Redeem(tk, PurposeInteractive); !errors.Is(err, ErrBadTicket) {
		t.Errorf("new instance accepted an old ticket: %v", err)
	}
}

// A full pool never refuses a mint: it expires the oldest unused ticket
// (expired ones are swept first).
func TestCapacity(t *testing.T) {
	t.Parallel()
	s, clock := newTestTickets(WithCapacity(3))
	first := mustMint(t, s, PurposeInteractive)
	for range 2 {
		mustMint(t, s, PurposeInteractive)
	}
	fourth := mustMint(t, s, PurposeInteractive)
	if n := s.Outstanding(); n != 3 {
		t.Fatalf("outstanding = %d, want 3", n)
	}
	if _, err := s.Redeem(first, PurposeInteractive); !errors.Is(err, ErrBadTicket) {
		t.Fatalf("oldest ticket still redeemable after the pool filled: %v", err)
	}
	if _, err := s.Redeem(fourth, PurposeInteractive); err != nil {
		t.Fatalf("newest ticket: %v", err)
	}
	mustMint(t, s, PurposeInteractive) // full again
	clock.Advance(DefaultTicketTTL)
	mustMint(t, s, PurposeInteractive) // expired entries are swept to make room
	if n := s.Outstanding(); n != 1 {
		t.Errorf("outstanding after sweep = %d, want 1", n)
	}
}

// One purpose's pool full of one peer's tickets leaves the other purpose
// untouched, and another peer of the same purpose still gets a ticket that
// works: the flooding peer's own oldest tickets go first.
func TestPerPurposeAndPerPeerCapacity(t *testing.T) {
	t.Parallel()
	s, _ := newTestTickets(WithCapacity(1024), WithPeerLimit(1024))
	flood := Peer{UID: 1000, PID: 42}
	var floodTickets []string
	for range 1024 {
		tk, err := s.MintFor(flood, "uid:1000", testProfile, testInstance, PurposeInteractive)
		if err != nil {
			t.Fatal(err)
		}
		floodTickets = append(floodTickets, tk)
	}
	other := Peer{UID: 1000, PID: 43}
	dash, err := s.MintFor(other, "uid:1000", testProfile, testInstance, PurposeDashboardLogin)
	if err != nil {
		t.Fatalf("dashboard-login mint while interactive is full: %v", err)
	}
	mine, err := s.MintFor(other, "uid:1000", testProfile, testInstance, PurposeInteractive)
	if err != nil {
		t.Fatalf("interactive mint of another peer: %v", err)
	}
	if _, err := s.Redeem(floodTickets[0], PurposeInteractive); !errors.Is(err, ErrBadTicket) {
		t.Errorf("the flood's oldest ticket survived: %v", err)
	}
	for _, tk := range []struct{ ticket, purpose string }{{dash, PurposeDashboardLogin}, {mine, PurposeInteractive}, {floodTickets[1023], PurposeInteractive}} {
		if _, err := s.Redeem(tk.ticket, tk.purpose); err != nil {
			t.Errorf("Redeem %s: %v", tk.purpose, err)
		}
	}
}

// A peer over its share loses its own oldest ticket, not anyone else's.
func TestPeerLimitEvictsOwnOldest(t *testing.T) {
	t.Parallel()
	s, _ := newTestTickets(WithPeerLimit(2))
	a, b := Peer{UID: 1, PID: 10}, Peer{UID: 1, PID: 11}
	mint := func(p Peer) string {
		tk, err := s.MintFor(p, "uid:1", testProfile, testInstance, PurposeInteractive)
		if err != nil {
			t.Fatal(err)
		}
		return tk
	}
	bTicket := mint(b)
	a1, a2, a3 := mint(a), mint(a), mint(a)
	if n := s.Outstanding(); n != 3 {
		t.Fatalf("outstanding = %d, want 3 (a's two newest and b's)", n)
	}
	if _, err := s.Redeem(a1, PurposeInteractive); !errors.Is(err, ErrBadTicket) {
		t.Errorf("a's oldest survived: %v", err)
	}
	for _, tk := range []string{bTicket, a2, a3} {
		if _, err := s.Redeem(tk, PurposeInteractive); err != nil {
			t.Errorf("Redeem: %v", err)
		}
	}
}

func TestRevoke(t *testing.T) {
	t.Parallel()
	s, _ := newTestTickets()
	tk := mustMint(t, s, PurposeInteractive)
	s.Revoke()
	if _, err := s.Redeem(tk, PurposeInteractive); !errors.Is(err, ErrBadTicket) {
		t.Errorf("revoked ticket redeemed: %v", err)
	}
}

// TestDigestOnlyStorage checks that neither the ticket string nor its raw
// bytes are reachable from the store, by formatting it and by walking every
// value reflection can see.
func TestDigestOnlyStorage(t *testing.T) {
	t.Parallel()
	s, _ := newTestTickets()
	var tickets []string
	for _, p := range []string{PurposeInteractive, PurposeDashboardLogin} {
		tickets = append(tickets, mustMint(t, s, p))
	}
	dump := fmt.Sprintf("%#v %+v", s, s.entries)
	var seen []string
	walk(reflect.ValueOf(s).Elem(), func(v string) { seen = append(seen, v) })
	for _, tk := range tickets {
		raw, _ := base64.RawURLEncoding.DecodeString(tk)
		for _, v := range append(seen, dump) {
			if strings.Contains(v, tk) || strings.Contains(v, string(raw)) {
				t.Fatalf("store retains a ticket: %q", v)
			}
		}
	}
	if len(seen) == 0 {
		t.Fatal("walk saw nothing")
	}
}

// walk calls fn with every string and the bytes of every byte array/slice
// reachable from v.
func walk(v reflect.Value, fn func(string)) {
	switch v.Kind() {
	case reflect.String:
		fn(v.String())
	case reflect.Array, reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			b := make([]byte, v.Len())
			for i := range b {
				b[i] = byte(v.Index(i).Uint())
			}
			fn(string(b))
			return
		}
		for i := range v.Len() {
			walk(v.Index(i), fn)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			walk(v.Field(i), fn)
		}
	case reflect.Map:
		for it := v.MapRange(); it.Next(); {
			walk(it.Key(), fn)
			walk(it.Value(), fn)
		}
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			walk(v.Elem(), fn)
		}
	}
}

// TestRedeemRace: many goroutines present the same ticket at once; exactly
// one wins (docs/protocol.md#tickets).
func TestRedeemRace(t *testing.T) {
	t.Parallel()
	s, _ := newTestTickets()
	tk := mustMint(t, s, PurposeInteractive)
	var wins atomic.Int32
	var wg sync.WaitGroup
	start := make(chan struct{})
	for range 64 {
		wg.Go(func() {
			<-start
			if _, err := s.Redeem(tk, PurposeInteractive); err == nil {
				wins.Add(1)
			}
		})
	}
	close(start)
	wg.Wait()
	if n := wins.Load(); n != 1 {
		t.Errorf("%d redemptions succeeded, want 1", n)
	}
}

func TestConcurrentMintRedeem(t *testing.T) {
	t.Parallel()
	s := NewTickets(testProfile, testInstance)
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for range 200 {
				tk, err := s.Mint("uid:1", testProfile, testInstance, PurposeInteractive)
				if err != nil {
					t.Error(err)
					return
				}
				if _, err := s.Redeem(tk, PurposeInteractive); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Go(func() {
		for range 50 {
			_ = s.Outstanding()
		}
	})
	wg.Wait()
}

func BenchmarkMintRedeem(b *testing.B) {
	s := NewTickets(testProfile, testInstance)
	for b.Loop() {
		tk := mustMint(b, s, PurposeInteractive)
		if _, err := s.Redeem(tk, PurposeInteractive); err != nil {
			b.Fatal(err)
		}
	}
}
