package dashboard

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"

	"github.com/hermes-gateway/hermes/internal/auth"
	"github.com/hermes-gateway/hermes/internal/gate"
)

// OIDCConfig is dashboard.oidc with the client secret resolved.
type OIDCConfig struct {
	Issuer       string
	ClientID     string
	ClientSecret auth.Secret // from client_secret_env; may be zero (public client + PKCE)
	// AllowedSubjects and AllowedEmails admit a login by its sub claim, or
	// by a verified email. Both empty admit nobody.
	AllowedSubjects []string
	AllowedEmails   []string
	// HTTPClient talks to the issuer; nil means a client with a 10 s timeout.
	HTTPClient *http.Client
}

// oidcLogin is the gated-mode login: lazy discovery of the issuer and the
// pending logins between /auth/login and /auth/callback.
type oidcLogin struct {
	cfg      OIDCConfig
	redirect string // <public_url>/auth/callback
	pending  *pendingLogins

	mu       sync.Mutex
	oauth    *oauth2.Config        // nil until discovered; guarded by mu
	verifier *oidc.IDTokenVerifier // nil until discovered; guarded by mu
}

// newGated parses public_url and checks the OIDC settings.
func newGated(cfg Config) (*url.URL, *oidcLogin, error) {
	u, ok := gate.ParsePublicURL(cfg.PublicURL)
	if !ok {
		return nil, nil, fmt.Errorf("dashboard: public_url %q is not an http(s) URL", cfg.PublicURL)
	}
	if cfg.OIDC.Issuer == "" || cfg.OIDC.ClientID == "" {
		return nil, nil, errors.New("dashboard: gated mode needs dashboard.oidc.issuer and client_id")
	}
	if cfg.OIDC.HTTPClient == nil {
		cfg.OIDC.HTTPClient = &http.Client{Timeout: 10 * time.Second}
	}
	l := &oidcLogin{
		cfg:      cfg.OIDC,
		redirect: strings.TrimSuffix(gate.OriginOf(u)+u.Path, "/") + "/auth/callback",
		pending:  newPendingLogins(cfg.Now),
	}
	return u, l, nil
}

// discover fetches the issuer's discovery document once (retried on the
// next login after a failure). go-oidc checks that it names our issuer.
func (l *oidcLogin) discover(ctx context.Context) (*oauth2.Config, *oidc.IDTokenVerifier, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.oauth != nil {
		return l.oauth, l.verifier, nil
	}
	p, err := oidc.NewProvider(l.clientCtx(ctx), l.cfg.Issuer)
	if err != nil {
		return nil, nil, fmt.Errorf("oidc discovery: %w", err)
	}
	l.oauth = &oauth2.Config{
		ClientID: l.cfg.ClientID, ClientSecret: l.cfg.ClientSecret.Reveal(),
		RedirectURL: l.redirect, Endpoint: p.Endpoint(),
		Scopes: []string{oidc.ScopeOpenID, "email"},
	}
	l.verifier = p.Verifier(&oidc.Config{ClientID: l.cfg.ClientID})
	return l.oauth, l.verifier, nil
}

func (l *oidcLogin) clientCtx(ctx context.Context) context.Context {
	ctx = oidc.ClientContext(ctx, l.cfg.HTTPClient)
	return context.WithValue(ctx, oauth2.HTTPClient, l.cfg.HTTPClient)
}

// allowed decides a verified login: sub in allowed_subjects, or a verified
// email in allowed_emails (case-insensitive). Both empty allow nobody.
func (l *oidcLogin) allowed(c idClaims) bool {
	if slices.Contains(l.cfg.AllowedSubjects, c.Subject) {
		return true
	}
	if c.Email == "" || !c.EmailVerified {
		return false
	}
	return slices.ContainsFunc(l.cfg.AllowedEmails, func(e string) bool { return strings.EqualFold(e, c.Email) })
}

// idClaims are the ID token claims the allow-list reads.
type idClaims struct {
	Subject       string `json:"sub"`
	Email         string `json:"email"`
	EmailVerified bool   `json:"email_verified"`
}

// serveLogin is GET /auth/login: a fresh state, nonce and PKCE verifier,
// the state also in a short-lived cookie that binds the callback to this
// browser, then a redirect to the issuer.
func (d *Dashboard) serveLogin(w http.ResponseWriter, r *http.Request) {
	if d.oidc == nil {
		http.NotFound(w, r)
		return
	}
	oc, _, err := d.oidc.discover(r.Context())
	if err != nil {
		d.log.Warn("oidc login unavailable", "err", err.Error())
		http.Error(w, "the identity provider is unreachable; try again later", http.StatusBadGateway)
		return
	}
	p := pendingLogin{nonce: newSecret(), verifier: oauth2.GenerateVerifier()}
	state, err := d.oidc.pending.mint(p)
	if err != nil {
		d.refuseHTTP(w, r, http.StatusTooManyRequests, err.Error())
		return
	}
	http.SetCookie(w, &http.Cookie{
		Name: oidcStateCookie, Value: state, Path: "/auth/callback", MaxAge: int(pendingLoginTTL.Seconds()),
		HttpOnly: true, Secure: d.secure(r), SameSite: http.SameSiteLaxMode,
	})
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, oc.AuthCodeURL(state, oidc.Nonce(p.nonce), oauth2.S256ChallengeOption(p.verifier)), http.StatusFound)
}

// serveCallback is GET /auth/callback: the state (query = cookie = a
// pending login, used once), the code exchange with the PKCE verifier, the
// ID token (signature, issuer, audience, expiry by go-oidc; nonce here),
// the allow-list, then a new session with a SameSite=Lax cookie.
func (d *Dashboard) serveCallback(w http.ResponseWriter, r *http.Request) {
	if d.oidc == nil {
		http.NotFound(w, r)
		return
	}
	d.clearCookie(w, r, oidcStateCookie, "/auth/callback")
	subject, status, why := d.completeLogin(r)
	if why != "" {
		d.log.Info("oidc login refused", "status", status, "why", why, "remote", r.RemoteAddr)
		http.Error(w, loginFailedText(status), status)
		return
	}
	d.login(w, r, subject, loginOIDC)
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

func loginFailedText(status int) string {
	if status == http.StatusForbidden {
		return "sign-in refused: this account is not allowed on this gateway"
	}
	return "sign-in failed; start again from the dashboard"
}

// completeLogin runs the callback checks; why is "" on success (and never
// contains a code, token, state or nonce).
func (d *Dashboard) completeLogin(r *http.Request) (subject string, status int, why string) {
	q := r.URL.Query()
	c, err := r.Cookie(oidcStateCookie)
	if err != nil || !auth.EqualSecret(q.Get("state"), c.Value) {
		return "", http.StatusBadRequest, "state missing or not this browser's"
	}
	p, ok := d.oidc.pending.take(q.Get("state"))
	if !ok {
		return "", http.StatusBadRequest, "unknown, used or expired state"
	}
	if q.Get("error") != "" || q.Get("code") == "" {
		return "", http.StatusBadRequest, "the identity provider returned no code"
	}
	claims, err := d.oidc.exchange(r.Context(), q.Get("code"), p)
	if err != nil {
		return "", http.StatusUnauthorized, err.Error()
	}
	if !d.oidc.allowed(claims) {
		return "", http.StatusForbidden, "subject not in allowed_subjects and no allowed verified email"
	}
	return auth.OIDCSubject(d.oidc.cfg.Issuer, claims.Subject), 0, ""
}

// exchange trades the code (with the PKCE verifier) for tokens and
// verifies the ID token and its nonce.
func (l *oidcLogin) exchange(ctx context.Context, code string, p pendingLogin) (idClaims, error) {
	oc, verifier, err := l.discover(ctx)
	if err != nil {
		return idClaims{}, err
	}
	tok, err := oc.Exchange(l.clientCtx(ctx), code, oauth2.VerifierOption(p.verifier))
	if err != nil {
		return idClaims{}, errors.New("code exchange failed")
	}
	raw, _ := tok.Extra("id_token").(string)
	if raw == "" {
		return idClaims{}, errors.New("token response without id_token")
	}
	idt, err := verifier.Verify(l.clientCtx(ctx), raw)
	if err != nil {
		return idClaims{}, fmt.Errorf("id token rejected: %w", err)
	}
	if !auth.EqualSecret(idt.Nonce, p.nonce) {
		return idClaims{}, errors.New("id token nonce mismatch")
	}
	var c idClaims
	if err := idt.Claims(&c); err != nil || c.Subject == "" {
		return idClaims{}, errors.New("id token without a subject")
	}
	return c, nil
}
