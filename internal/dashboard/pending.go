package dashboard

import (
	"errors"
	"sync"
	"time"

	"golang.org/x/oauth2"
)

// Pending OIDC logins: a login must come back within pendingLoginTTL.
const (
	pendingLoginTTL = 10 * time.Minute
	maxPendingLogin = 256
)

var errTooManyLogins = errors.New("too many logins in progress")

// pendingLogin is what /auth/login remembers for its callback.
type pendingLogin struct {
	nonce    string
	verifier string    // PKCE code verifier
	expires  time.Time // monotonic
}

// pendingLogins maps the digest of a login's state to its secrets; a state
// is taken once.
type pendingLogins struct {
	now func() time.Time

	mu sync.Mutex
	m  map[digest]pendingLogin // guarded by mu
}

func newPendingLogins(now func() time.Time) *pendingLogins {
	return &pendingLogins{now: now, m: map[digest]pendingLogin{}}
}

// start records a new login and returns it with its state.
func (p *pendingLogins) start() (pendingLogin, string, error) {
	now := p.now()
	pl := pendingLogin{nonce: newSecret(), verifier: oauth2.GenerateVerifier(), expires: now.Add(pendingLoginTTL)}
	state := newSecret()
	p.mu.Lock()
	defer p.mu.Unlock()
	for d, v := range p.m {
		if !now.Before(v.expires) {
			delete(p.m, d)
		}
	}
	if len(p.m) >= maxPendingLogin {
		return pendingLogin{}, "", errTooManyLogins
	}
	p.m[digestOf(state)] = pl
	return pl, state, nil
}

// take removes and returns the login of state if it has not expired.
func (p *pendingLogins) take(state string) (pendingLogin, bool) {
	if state == "" || len(state) > maxSecretLen {
		return pendingLogin{}, false
	}
	d := digestOf(state)
	p.mu.Lock()
	pl, ok := p.m[d]
	delete(p.m, d)
	p.mu.Unlock()
	return pl, ok && p.now().Before(pl.expires)
}
