package dashboard

import (
	"net/http"
	"strings"
)

// Cookie names. The session cookie holds the session id itself; the state
// cookie binds an OIDC login to the browser that started it.
const (
	SessionCookie   = "hermes_session"
	oidcStateCookie = "hermes_oidc_state"
)

// session returns the dashboard session the request presents (cookie, or
// Authorization: Bearer <session id>) and the digest of its id.
func (d *Dashboard) session(r *http.Request) (dashSession, digest, bool) {
	id := presentedSessionID(r)
	ds, ok := d.sessions.lookup(id)
	if !ok {
		return dashSession{}, digest{}, false
	}
	return ds, digestOf(id), true
}

// presentedSessionID prefers a Bearer header over the cookie.
func presentedSessionID(r *http.Request) string {
	if h := r.Header.Get("Authorization"); h != "" {
		scheme, tok, ok := strings.Cut(h, " ")
		if ok && strings.EqualFold(scheme, "Bearer") {
			return strings.TrimSpace(tok)
		}
		return ""
	}
	if c, err := r.Cookie(SessionCookie); err == nil {
		return c.Value
	}
	return ""
}

// login rotates the browser's session: the presented one (if any) ends and
// a fresh id for subject is set as the cookie.
func (d *Dashboard) login(w http.ResponseWriter, r *http.Request, subject string, kind loginKind) {
	if c, err := r.Cookie(SessionCookie); err == nil {
		d.sessions.end(c.Value)
	}
	id := d.sessions.open(subject, kind)
	same := http.SameSiteStrictMode
	if kind == loginOIDC {
		same = http.SameSiteLaxMode
	}
	http.SetCookie(w, &http.Cookie{
		Name: SessionCookie, Value: id, Path: "/",
		HttpOnly: true, Secure: d.secure(r), SameSite: same,
		MaxAge: int(d.cfg.MaxLifetime.Seconds()),
	})
	d.log.Info("dashboard session opened", "subject", subject, "remote", r.RemoteAddr)
}

// clearCookie expires a cookie with the attributes it was set with.
func (d *Dashboard) clearCookie(w http.ResponseWriter, r *http.Request, name, path string) {
	http.SetCookie(w, &http.Cookie{
		Name: name, Value: "", Path: path, MaxAge: -1,
		HttpOnly: true, Secure: d.secure(r), SameSite: http.SameSiteLaxMode,
	})
}

// secure reports whether the request reached us over https: directly
// (TLS), or through the public https URL in gated mode (a TLS-terminating
// proxy in front of the listener).
func (d *Dashboard) secure(r *http.Request) bool {
	if r.TLS != nil {
		return true
	}
	return d.public != nil && d.public.Scheme == "https" && strings.EqualFold(r.Host, d.public.Host)
}

// serveLogout is POST /auth/logout: CSRF gate, then the session ends and
// the cookie is cleared. Without a session it still clears the cookie.
func (d *Dashboard) serveLogout(w http.ResponseWriter, r *http.Request) {
	if !d.mutationAllowed(w, r) {
		return
	}
	d.sessions.end(presentedSessionID(r))
	d.clearCookie(w, r, SessionCookie, "/")
	w.WriteHeader(http.StatusNoContent)
}
