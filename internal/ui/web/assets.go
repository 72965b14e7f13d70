package web

import (
	"embed"
	"io/fs"
	"net/http"
)

//go:embed assets
var assetFS embed.FS

// assetHandler serves the page's modules and styles.
func assetHandler() http.Handler {
	sub, err := fs.Sub(assetFS, "assets")
	if err != nil {
		panic(err) // the directory is embedded: cannot happen
	}
	return http.StripPrefix("/assets/", http.FileServerFS(sub))
}

// serveIndex serves the page.
func (s *Server) serveIndex(w http.ResponseWriter, r *http.Request) {
	b, err := assetFS.ReadFile("assets/index.html")
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write(b)
}
