package dashboard

import (
	"crypto/sha256"
	"sync"
	"time"

	"github.com/hermes-gateway/hermes/internal/auth"
)

// Session lifetimes and capacity.
const (
	DefaultIdleTimeout = 12 * time.Hour
	DefaultMaxLifetime = 7 * 24 * time.Hour
	maxSessions        = 1024
	// maxSecretLen bounds what is hashed from a request; ids are 43 chars.
	maxSecretLen = 256
)

// digest is the only form in which a session id or ticket is stored.
type digest [sha256.Size]byte

func digestOf(secret string) digest { return sha256.Sum256([]byte(secret)) }

// newSecret returns 256 bits from crypto/rand, base64url.
func newSecret() string {
	s, _ := auth.NewSecretToken()
	return s
}

// loginKind is how a dashboard session was opened; it decides the cookie's
// SameSite mode.
type loginKind int

const (
	loginLink loginKind = iota // the one-time link: SameSite=Strict
	loginOIDC                  // OIDC: SameSite=Lax
)

// dashSession is one server-side dashboard session.
type dashSession struct {
	subject  string
	kind     loginKind
	created  time.Time // monotonic reading of the clock
	lastSeen time.Time // updated on every authenticated request
}

// sessions holds the dashboard sessions by the digest of their id.
type sessions struct {
	now      func() time.Time
	idle     time.Duration
	lifetime time.Duration

	mu sync.Mutex
	m  map[digest]*dashSession // guarded by mu
}

func newSessions(now func() time.Time, idle, lifetime time.Duration) *sessions {
	return &sessions{now: now, idle: idle, lifetime: lifetime, m: map[digest]*dashSession{}}
}

// open starts a session for subject and returns its id (the cookie value).
func (s *sessions) open(subject string, kind loginKind) string {
	id := newSecret()
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sweepLocked(now)
	if len(s.m) >= maxSessions {
		s.evictOldestLocked()
	}
	s.m[digestOf(id)] = &dashSession{subject: subject, kind: kind, created: now, lastSeen: now}
	return id
}

// lookup returns the live session of id and refreshes its idle timer.
func (s *sessions) lookup(id string) (dashSession, bool) {
	if id == "" || len(id) > maxSecretLen {
		return dashSession{}, false
	}
	return s.lookupDigest(digestOf(id), true)
}

func (s *sessions) lookupDigest(d digest, touch bool) (dashSession, bool) {
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	ds, ok := s.m[d]
	if !ok {
		return dashSession{}, false
	}
	if s.expired(ds, now) {
		delete(s.m, d)
		return dashSession{}, false
	}
	if touch {
		ds.lastSeen = now
	}
	return *ds, true
}

// end removes the session of id (logout, or rotation at login).
func (s *sessions) end(id string) {
	if id == "" || len(id) > maxSecretLen {
		return
	}
	s.mu.Lock()
	delete(s.m, digestOf(id))
	s.mu.Unlock()
}

func (s *sessions) expired(ds *dashSession, now time.Time) bool {
	return now.Sub(ds.lastSeen) >= s.idle || now.Sub(ds.created) >= s.lifetime
}

func (s *sessions) sweepLocked(now time.Time) {
	for d, ds := range s.m {
		if s.expired(ds, now) {
			delete(s.m, d)
		}
	}
}

func (s *sessions) evictOldestLocked() {
	var oldest digest
	var at time.Time
	first := true
	for d, ds := range s.m {
		if first || ds.lastSeen.Before(at) {
			oldest, at, first = d, ds.lastSeen, false
		}
	}
	delete(s.m, oldest)
}
