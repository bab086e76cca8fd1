package dashboard

import (
	"sync"
	"time"
)

// oneShot is a bounded store of single-use secrets, each minted for a value
// of T (a WS ticket for a session digest, an OIDC state for its pending
// login). Only the sha256 of a secret is kept; the first presentation
// removes it whatever the outcome, so exactly one of concurrent takes wins.
type oneShot[T any] struct {
	now   func() time.Time
	ttl   time.Duration
	limit int
	full  error // returned by mint at capacity

	mu sync.Mutex
	m  map[digest]oneShotEntry[T] // guarded by mu
}

type oneShotEntry[T any] struct {
	v       T
	expires time.Time // monotonic
}

func newOneShot[T any](now func() time.Time, ttl time.Duration, limit int, full error) *oneShot[T] {
	return &oneShot[T]{now: now, ttl: ttl, limit: limit, full: full, m: map[digest]oneShotEntry[T]{}}
}

// mint returns a fresh secret for v, valid for ttl. Expired entries are
// swept first, so only live ones count against limit.
func (o *oneShot[T]) mint(v T) (string, error) {
	secret := newSecret()
	now := o.now()
	o.mu.Lock()
	defer o.mu.Unlock()
	for d, e := range o.m {
		if !now.Before(e.expires) {
			delete(o.m, d)
		}
	}
	if len(o.m) >= o.limit {
		return "", o.full
	}
	o.m[digestOf(secret)] = oneShotEntry[T]{v: v, expires: now.Add(o.ttl)}
	return secret, nil
}

// take consumes secret and returns its value. Unknown, replayed and expired
// secrets are the same false.
func (o *oneShot[T]) take(secret string) (T, bool) {
	var zero T
	if secret == "" || len(secret) > maxSecretLen {
		return zero, false
	}
	d := digestOf(secret)
	now := o.now()
	o.mu.Lock()
	e, ok := o.m[d]
	delete(o.m, d)
	o.mu.Unlock()
	if !ok || !now.Before(e.expires) {
		return zero, false
	}
	return e.v, true
}
