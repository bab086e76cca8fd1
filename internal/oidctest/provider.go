// Package oidctest is a loopback OpenID Connect provider for tests:
// discovery, an authorize endpoint that answers at once for the configured
// user, a token endpoint that checks PKCE S256 and the redirect URI, and
// JWKS. It signs RS256 ID tokens with a key made per provider.
//
// It imports nothing internal and must never import dashboard, the code it
// stands in a provider for; only tests import it.
package oidctest

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// Provider is one running test identity provider, closed on t.Cleanup.
type Provider struct {
	t   testing.TB
	srv *httptest.Server
	key *rsa.PrivateKey

	mu            sync.Mutex
	sub, email    string           // the user who "signs in"; guarded by mu
	emailVerified bool             // guarded by mu
	nonceOverride string           // when set, ID tokens carry this nonce; guarded by mu
	codes         map[string]grant // issued, unused codes; guarded by mu
}

type grant struct{ challenge, nonce, clientID, redirect string }

// New starts a provider whose user is sub (no e-mail).
func New(t testing.TB, sub string) *Provider {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	p := &Provider{t: t, key: key, sub: sub, codes: map[string]grant{}}
	m := http.NewServeMux()
	m.HandleFunc("GET /.well-known/openid-configuration", p.discovery)
	m.HandleFunc("GET /authorize", p.authorize)
	m.HandleFunc("POST /token", p.token)
	m.HandleFunc("GET /jwks", p.jwks)
	p.srv = httptest.NewServer(m)
	t.Cleanup(p.srv.Close)
	return p
}

// Issuer is the provider's issuer URL.
func (p *Provider) Issuer() string { return p.srv.URL }

// User sets who signs in next.
func (p *Provider) User(sub, email string, verified bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.sub, p.email, p.emailVerified = sub, email, verified
}

// ForceNonce makes every ID token carry nonce instead of the requested one.
func (p *Provider) ForceNonce(nonce string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.nonceOverride = nonce
}

func (p *Provider) discovery(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, 200, map[string]any{
		"issuer": p.Issuer(), "authorization_endpoint": p.Issuer() + "/authorize",
		"token_endpoint": p.Issuer() + "/token", "jwks_uri": p.Issuer() + "/jwks",
		"response_types_supported": []string{"code"}, "subject_types_supported": []string{"public"},
		"id_token_signing_alg_values_supported": []string{"RS256"},
		"code_challenge_methods_supported":      []string{"S256"},
	})
}

func (p *Provider) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if q.Get("response_type") != "code" || q.Get("code_challenge_method") != "S256" ||
		q.Get("code_challenge") == "" || q.Get("nonce") == "" || q.Get("state") == "" {
		http.Error(w, "bad authorize request", 400)
		return
	}
	code := rand.Text()
	p.mu.Lock()
	p.codes[code] = grant{q.Get("code_challenge"), q.Get("nonce"), q.Get("client_id"), q.Get("redirect_uri")}
	p.mu.Unlock()
	http.Redirect(w, r, q.Get("redirect_uri")+"?"+url.Values{"code": {code}, "state": {q.Get("state")}}.Encode(), http.StatusFound)
}

func (p *Provider) token(w http.ResponseWriter, r *http.Request) {
	_ = r.ParseForm()
	p.mu.Lock()
	g, ok := p.codes[r.PostForm.Get("code")]
	delete(p.codes, r.PostForm.Get("code"))
	sub, email, verified, nonce := p.sub, p.email, p.emailVerified, g.nonce
	if p.nonceOverride != "" {
		nonce = p.nonceOverride
	}
	p.mu.Unlock()
	sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
	if !ok || base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge || r.PostForm.Get("redirect_uri") != g.redirect {
		writeJSON(w, 400, map[string]string{"error": "invalid_grant"})
		return
	}
	claims := map[string]any{
		"iss": p.Issuer(), "sub": sub, "aud": g.clientID, "nonce": nonce,
		"iat": time.Now().Unix(), "exp": time.Now().Add(5 * time.Minute).Unix(),
	}
	if email != "" {
		claims["email"], claims["email_verified"] = email, verified
	}
	writeJSON(w, 200, map[string]any{"access_token": "at", "token_type": "Bearer", "expires_in": 300, "id_token": p.sign(claims)})
}

func (p *Provider) sign(claims map[string]any) string {
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: p.key},
		(&jose.SignerOptions{}).WithType("JWT").WithHeader("kid", "k1"))
	if err != nil {
		p.t.Fatal(err)
	}
	payload, _ := json.Marshal(claims)
	jws, err := signer.Sign(payload)
	if err != nil {
		p.t.Fatal(err)
	}
	s, _ := jws.CompactSerialize()
	return s
}

func (p *Provider) jwks(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, 200, jose.JSONWebKeySet{Keys: []jose.JSONWebKey{
		{Key: &p.key.PublicKey, KeyID: "k1", Algorithm: "RS256", Use: "sig"},
	}})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
