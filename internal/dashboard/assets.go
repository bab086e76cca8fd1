package dashboard

import (
	"embed"
	"io/fs"
	"net/http"
)

// web holds the UI: plain HTML, CSS and ES modules (no build step), strict
// CSP compatible (no inline script or style).
//
//go:embed web
var web embed.FS

// assetHandler serves /assets/* from web/assets. They hold no secret and
// are served without a session.
func assetHandler() http.Handler {
	sub, err := fs.Sub(web, "web")
	if err != nil {
		panic(err) // the embed directive guarantees web/ exists
	}
	files := http.FileServerFS(sub)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-cache")
		files.ServeHTTP(w, r)
	})
}

// serveFavicon answers GET /favicon.ico, which browsers ask for whatever
// the page links, with the page's SVG icon.
func serveFavicon(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "max-age=86400")
	w.Header().Set("Content-Type", "image/svg+xml")
	http.ServeFileFS(w, r, web, "web/assets/favicon.svg")
}

// serveIndex serves the single page; the page itself asks /api/auth/me
// whether to show the sessions or the sign-in hint.
func serveIndex(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	http.ServeFileFS(w, r, web, "web/index.html")
}
