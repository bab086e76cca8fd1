package auth

import (
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"sync"
	"time"
)

// Ticket purposes (docs/protocol.md#control-socket, verb session-ticket).
const (
	// PurposeInteractive tickets open a native WebSocket connection with
	// InteractiveCaps (the gate adds session:operator).
	PurposeInteractive = "interactive"
	// PurposeDashboardLogin tickets open a dashboard session through the
	// one-time link printed by `hermes dashboard`.
	PurposeDashboardLogin = "dashboard-login"
)

// Ticket store defaults (docs/protocol.md#tickets).
const (
	DefaultTicketTTL = 30 * time.Second
	// DefaultTicketCapacity bounds the outstanding tickets of each purpose
	// (interactive and dashboard-login have one such pool each).
	DefaultTicketCapacity = 1024
	// DefaultPeerTickets bounds the outstanding tickets of one peer process
	// per purpose.
	DefaultPeerTickets = 64
	// MaxTicketLen bounds what Redeem hashes; longer input is refused.
	MaxTicketLen = 256
)

// Errors of the ticket store. None of them carries a ticket.
var (
	// ErrBadTicket: the ticket is unknown, expired, already used, of another
	// purpose or malformed. Callers refuse the request (HTTP 401) and must
	// not tell the cases apart.
	ErrBadTicket = errors.New("invalid or expired ticket")
	// ErrForeignProfile: Mint was asked for a profile this store does not
	// serve. The client talks to the wrong daemon.
	ErrForeignProfile = errors.New("profile_id does not match this gateway")
	// ErrStaleInstance: Mint was asked for another daemon instance. The
	// client must identify again and retry with the current instance_id.
	ErrStaleInstance = errors.New("stale instance_id: the gateway restarted; identify again")
	// ErrUnknownPurpose: the purpose is not one of the Purpose* constants.
	ErrUnknownPurpose = errors.New("unknown ticket purpose")
	// ErrNoSubject: Mint was called without a subject (a server bug).
	ErrNoSubject = errors.New("ticket subject is empty")
)

// Grant is what a redeemed ticket proves.
type Grant struct {
	Subject    string
	ProfileID  string
	InstanceID string
	Purpose    string
}

// Caps is the capability set of the grant's purpose before the gate adds
// session:operator: InteractiveCaps for interactive tickets, none for
// dashboard-login tickets (they open a dashboard session, not a socket).
func (g Grant) Caps() Caps {
	if g.Purpose == PurposeInteractive {
		return InteractiveCaps()
	}
	return 0
}

// Option configures NewTickets.
type Option func(*Tickets)

// WithClock replaces time.Now. The clock should carry a monotonic reading
// (time.Now does); tests inject a fake clock.
func WithClock(now func() time.Time) Option { return func(t *Tickets) { t.now = now } }

// WithTTL sets how long a ticket stays redeemable (default 30 s).
func WithTTL(d time.Duration) Option { return func(t *Tickets) { t.ttl = d } }

// WithCapacity bounds the outstanding tickets of each purpose (default
// 1024).
func WithCapacity(n int) Option { return func(t *Tickets) { t.capacity = n } }

// WithPeerLimit bounds the outstanding tickets of one peer per purpose
// (default 64).
func WithPeerLimit(n int) Option { return func(t *Tickets) { t.peerLimit = n } }

// Peer is the local process a ticket is minted for, as the kernel reported
// it on the control socket (SO_PEERCRED). The zero Peer is "unknown": only
// the purpose's capacity applies to it.
type Peer struct {
	UID int
	PID int
}

type digest = [sha256.Size]byte

type ticketEntry struct {
	digest  digest // sha256 of the ticket, compared again in constant time
	grant   Grant
	peer    Peer
	minted  uint64    // mint order within the store; lower is older
	expires time.Time // monotonic deadline from the store's clock
}

// holder is one peer's share of one purpose's pool.
type holder struct {
	purpose string
	peer    Peer
}

// Tickets is the native ticket store of one daemon instance
// (docs/protocol.md#tickets). It keeps only digests; see the package
// invariants.
type Tickets struct {
	profileID  string
	instanceID string
	now        func() time.Time
	ttl        time.Duration
	capacity   int // per purpose
	peerLimit  int // per peer and purpose

	mu      sync.Mutex
	entries map[digest]ticketEntry // guarded by mu; unexpired or not yet swept
	pools   map[string]int         // guarded by mu: entries per purpose
	held    map[holder]int         // guarded by mu: entries per peer and purpose; no zero counts
	minted  uint64                 // guarded by mu: the last ticketEntry.minted
}

// NewTickets returns the store of the daemon instance instanceID serving
// profileID.
func NewTickets(profileID, instanceID string, opts ...Option) *Tickets {
	t := &Tickets{
		profileID:  profileID,
		instanceID: instanceID,
		now:        time.Now,
		ttl:        DefaultTicketTTL,
		capacity:   DefaultTicketCapacity,
		peerLimit:  DefaultPeerTickets,
		entries:    make(map[digest]ticketEntry),
		pools:      make(map[string]int),
		held:       make(map[holder]int),
	}
	for _, o := range opts {
		o(t)
	}
	t.capacity, t.peerLimit = max(t.capacity, 1), max(t.peerLimit, 1)
	return t
}

func knownPurpose(p string) bool { return p == PurposeInteractive || p == PurposeDashboardLogin }

// Mint is MintFor an unknown peer.
func (t *Tickets) Mint(subject, profileID, instanceID, purpose string) (string, error) {
	return t.MintFor(Peer{}, subject, profileID, instanceID, purpose)
}

// MintFor issues a ticket for subject, minted for peer. profileID and
// instanceID are what the client believes it talks to; they must match the
// store's. The returned ticket is the only copy: the store keeps its sha256.
//
// Limits never refuse a mint, so one process cannot lock others out:
//   - each purpose has its own pool (WithCapacity), so dashboard-login and
//     interactive minting cannot exhaust each other;
//   - a peer that already holds WithPeerLimit tickets of the purpose loses
//     its oldest unused one;
//   - a full pool expires the oldest unused ticket of the peer holding the
//     most tickets of that purpose.
//
// Expired tickets are swept before anything is evicted.
func (t *Tickets) MintFor(peer Peer, subject, profileID, instanceID, purpose string) (string, error) {
	switch {
	case subject == "":
		return "", ErrNoSubject
	case profileID != t.profileID:
		return "", ErrForeignProfile
	case instanceID != t.instanceID:
		return "", ErrStaleInstance
	case !knownPurpose(purpose):
		return "", ErrUnknownPurpose
	}
	ticket := randomToken(secretBytes)
	e := ticketEntry{
		digest: sha256.Sum256([]byte(ticket)),
		grant:  Grant{Subject: subject, ProfileID: profileID, InstanceID: instanceID, Purpose: purpose},
		peer:   peer,
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.now()
	t.makeRoomLocked(now, holder{purpose: purpose, peer: peer})
	t.minted++
	e.minted = t.minted
	e.expires = now.Add(t.ttl)
	t.addLocked(e)
	return ticket, nil
}

// makeRoomLocked evicts so that h may hold one more ticket (see MintFor).
func (t *Tickets) makeRoomLocked(now time.Time, h holder) {
	swept := false
	sweep := func() {
		if !swept {
			t.sweepLocked(now)
			swept = true
		}
	}
	if h.peer != (Peer{}) && t.held[h] >= t.peerLimit {
		sweep()
		if t.held[h] >= t.peerLimit {
			t.evictOldestLocked(h)
		}
	}
	if t.pools[h.purpose] >= t.capacity {
		sweep()
		for t.pools[h.purpose] >= t.capacity {
			t.evictOldestLocked(t.heaviestLocked(h.purpose))
		}
	}
}

// heaviestLocked is the holder of purpose with the most tickets (ties: any).
func (t *Tickets) heaviestLocked(purpose string) holder {
	var top holder
	most := 0
	for h, n := range t.held {
		if h.purpose == purpose && n > most {
			top, most = h, n
		}
	}
	return top
}

// evictOldestLocked removes h's oldest outstanding ticket.
func (t *Tickets) evictOldestLocked(h holder) {
	var oldest *ticketEntry
	for _, e := range t.entries {
		if e.grant.Purpose == h.purpose && e.peer == h.peer && (oldest == nil || e.minted < oldest.minted) {
			oldest = &e
		}
	}
	if oldest != nil {
		t.removeLocked(*oldest)
	}
}

func (t *Tickets) addLocked(e ticketEntry) {
	t.entries[e.digest] = e
	t.pools[e.grant.Purpose]++
	t.held[holder{purpose: e.grant.Purpose, peer: e.peer}]++
}

func (t *Tickets) removeLocked(e ticketEntry) {
	delete(t.entries, e.digest)
	t.pools[e.grant.Purpose]--
	h := holder{purpose: e.grant.Purpose, peer: e.peer}
	if t.held[h]--; t.held[h] <= 0 {
		delete(t.held, h)
	}
}

// Redeem consumes a ticket minted for purpose and returns its grant. Any
// presentation of a known ticket removes it (single use, also on expiry or
// purpose mismatch); every failure is ErrBadTicket.
//
// The entry is found by a map lookup on sha256(ticket): its timing depends
// only on the digest, which an attacker cannot steer toward a stored one
// without a preimage. The stored digest is then compared again with
// subtle.ConstantTimeCompare so the final check is constant time as well.
func (t *Tickets) Redeem(ticket, purpose string) (Grant, error) {
	if ticket == "" || len(ticket) > MaxTicketLen {
		return Grant{}, ErrBadTicket
	}
	d := sha256.Sum256([]byte(ticket))
	t.mu.Lock()
	defer t.mu.Unlock()
	e, ok := t.entries[d]
	if !ok || subtle.ConstantTimeCompare(e.digest[:], d[:]) != 1 {
		return Grant{}, ErrBadTicket
	}
	t.removeLocked(e)
	if !t.now().Before(e.expires) || e.grant.Purpose != purpose {
		return Grant{}, ErrBadTicket
	}
	return e.grant, nil
}

// Revoke forgets every outstanding ticket (shutdown, or a security event).
func (t *Tickets) Revoke() {
	t.mu.Lock()
	defer t.mu.Unlock()
	clear(t.entries)
	clear(t.pools)
	clear(t.held)
}

// Outstanding returns how many tickets are held, expired ones not yet swept
// included (for status and tests).
func (t *Tickets) Outstanding() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.entries)
}

func (t *Tickets) sweepLocked(now time.Time) {
	for _, e := range t.entries {
		if !now.Before(e.expires) {
			t.removeLocked(e)
		}
	}
}
