package dashboard

import (
	"errors"
	"time"
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
	verifier string // PKCE code verifier
}

// pendingLogins maps the digest of a login's state to its secrets; a state
// is taken once.
type pendingLogins = oneShot[pendingLogin]

func newPendingLogins(now func() time.Time) *pendingLogins {
	return newOneShot[pendingLogin](now, pendingLoginTTL, maxPendingLogin, errTooManyLogins)
}
