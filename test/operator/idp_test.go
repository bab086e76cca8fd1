package operator

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

// idp is a loopback OpenID provider for gated mode: discovery, authorize
// (answers at once for the configured user), token (checks PKCE S256 and
// the redirect URI) and JWKS. Adapted from internal/dashboard's fixture.
type idp struct {
	t   *testing.T
	srv *httptest.Server
	key *rsa.PrivateKey

	mu    sync.Mutex
	sub   string           // guarded by mu: the user who "signs in"
	codes map[string]grant // guarded by mu: issued, unused codes
}

type grant struct{ challenge, nonce, clientID, redirect string }

func newIdP(t *testing.T, sub string) *idp {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	p := &idp{t: t, key: key, sub: sub, codes: map[string]grant{}}
	m := http.NewServeMux()
	m.HandleFunc("GET /.well-known/openid-configuration", p.discovery)
	m.HandleFunc("GET /authorize", p.authorize)
	m.HandleFunc("POST /token", p.token)
	m.HandleFunc("GET /jwks", p.jwks)
	p.srv = httptest.NewServer(m)
	t.Cleanup(p.srv.Close)
	return p
}

func (p *idp) issuer() string { return p.srv.URL }

func (p *idp) user(sub string) {
	p.mu.Lock()
	p.sub = sub
	p.mu.Unlock()
}

func (p *idp) discovery(w http.ResponseWriter, _ *http.Request) {
	idpJSON(w, 200, map[string]any{
		"issuer": p.issuer(), "authorization_endpoint": p.issuer() + "/authorize",
		"token_endpoint": p.issuer() + "/token", "jwks_uri": p.issuer() + "/jwks",
		"response_types_supported": []string{"code"}, "subject_types_supported": []string{"public"},
		"id_token_signing_alg_values_supported": []string{"RS256"},
		"code_challenge_methods_supported":      []string{"S256"},
	})
}

func (p *idp) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if q.Get("response_type") != "code" || q.Get("code_challenge_method") != "S256" ||
		q.Get("code_challenge") == "" || q.Get("nonce") == "" || q.Get("state") == "" {
		http.Error(w, "bad authorize request", 400)
		return
	}
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	code := base64.RawURLEncoding.EncodeToString(b)
	p.mu.Lock()
	p.codes[code] = grant{q.Get("code_challenge"), q.Get("nonce"), q.Get("client_id"), q.Get("redirect_uri")}
	p.mu.Unlock()
	http.Redirect(w, r, q.Get("redirect_uri")+"?"+url.Values{"code": {code}, "state": {q.Get("state")}}.Encode(), http.StatusFound)
}

func (p *idp) token(w http.ResponseWriter, r *http.Request) {
	_ = r.ParseForm()
	p.mu.Lock()
	g, ok := p.codes[r.PostForm.Get("code")]
	delete(p.codes, r.PostForm.Get("code"))
	sub := p.sub
	p.mu.Unlock()
	sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
	if !ok || base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge || r.PostForm.Get("redirect_uri") != g.redirect {
		idpJSON(w, 400, map[string]string{"error": "invalid_grant"})
		return
	}
	claims := map[string]any{
		"iss": p.issuer(), "sub": sub, "aud": g.clientID, "nonce": g.nonce,
		"iat": time.Now().Unix(), "exp": time.Now().Add(5 * time.Minute).Unix(),
	}
	idpJSON(w, 200, map[string]any{"access_token": "at", "token_type": "Bearer", "expires_in": 300, "id_token": p.sign(claims)})
}

func (p *idp) sign(claims map[string]any) string {
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: p.key},
		(&jose.SignerOptions{}).WithType("JWT").WithHeader("kid", "k1"))
	if err != nil {
		p.t.Error(err)
		return ""
	}
	payload, _ := json.Marshal(claims)
	jws, err := signer.Sign(payload)
	if err != nil {
		p.t.Error(err)
		return ""
	}
	s, _ := jws.CompactSerialize()
	return s
}

func (p *idp) jwks(w http.ResponseWriter, _ *http.Request) {
	idpJSON(w, 200, jose.JSONWebKeySet{Keys: []jose.JSONWebKey{
		{Key: &p.key.PublicKey, KeyID: "k1", Algorithm: "RS256", Use: "sig"},
	}})
}

func idpJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
