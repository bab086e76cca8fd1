package dashboard

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

// testIdP is a loopback OpenID provider: discovery, authorize (answers at
// once for the configured user), token (checks PKCE S256) and JWKS.
type testIdP struct {
	t   *testing.T
	srv *httptest.Server
	key *rsa.PrivateKey

	mu            sync.Mutex
	sub, email    string // the user who "signs in"; guarded by mu
	emailVerified bool
	nonceOverride string              // when set, the ID token carries this nonce
	codes         map[string]idpGrant // guarded by mu
}

type idpGrant struct{ challenge, nonce, clientID, redirect string }

func newTestIdP(t *testing.T) *testIdP {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	p := &testIdP{t: t, key: key, sub: "alice", codes: map[string]idpGrant{}}
	m := http.NewServeMux()
	m.HandleFunc("GET /.well-known/openid-configuration", p.discovery)
	m.HandleFunc("GET /authorize", p.authorize)
	m.HandleFunc("POST /token", p.token)
	m.HandleFunc("GET /jwks", p.jwks)
	p.srv = httptest.NewServer(m)
	t.Cleanup(p.srv.Close)
	return p
}

func (p *testIdP) issuer() string { return p.srv.URL }

func (p *testIdP) user(sub, email string, verified bool) {
	p.mu.Lock()
	p.sub, p.email, p.emailVerified = sub, email, verified
	p.mu.Unlock()
}

func (p *testIdP) discovery(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, 200, map[string]any{
		"issuer": p.issuer(), "authorization_endpoint": p.issuer() + "/authorize",
		"token_endpoint": p.issuer() + "/token", "jwks_uri": p.issuer() + "/jwks",
		"response_types_supported": []string{"code"}, "subject_types_supported": []string{"public"},
		"id_token_signing_alg_values_supported": []string{"RS256"},
		"code_challenge_methods_supported":      []string{"S256"},
	})
}

func (p *testIdP) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if q.Get("response_type") != "code" || q.Get("code_challenge_method") != "S256" ||
		q.Get("code_challenge") == "" || q.Get("nonce") == "" || q.Get("state") == "" {
		http.Error(w, "bad authorize request", 400)
		return
	}
	code := newSecret()
	p.mu.Lock()
	p.codes[code] = idpGrant{q.Get("code_challenge"), q.Get("nonce"), q.Get("client_id"), q.Get("redirect_uri")}
	p.mu.Unlock()
	http.Redirect(w, r, q.Get("redirect_uri")+"?"+url.Values{"code": {code}, "state": {q.Get("state")}}.Encode(), http.StatusFound)
}

func (p *testIdP) token(w http.ResponseWriter, r *http.Request) {
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
		"iss": p.issuer(), "sub": sub, "aud": g.clientID, "nonce": nonce,
		"iat": time.Now().Unix(), "exp": time.Now().Add(5 * time.Minute).Unix(),
	}
	if email != "" {
		claims["email"], claims["email_verified"] = email, verified
	}
	writeJSON(w, 200, map[string]any{"access_token": "at", "token_type": "Bearer", "expires_in": 300, "id_token": p.sign(claims)})
}

func (p *testIdP) sign(claims map[string]any) string {
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

func (p *testIdP) jwks(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, 200, jose.JSONWebKeySet{Keys: []jose.JSONWebKey{
		{Key: &p.key.PublicKey, KeyID: "k1", Algorithm: "RS256", Use: "sig"},
	}})
}
