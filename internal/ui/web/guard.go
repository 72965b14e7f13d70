package web

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// cookieName holds the token once the page was opened with it.
const cookieName = "olly_token"

// hostRule is which Host headers the server answers: against DNS
// rebinding, a page of another site whose name was pointed at this
// address must not get through. On loopback, the loopback names with the
// port; on one address, that address; on every address (0.0.0.0), any
// name — the token is then the only wall, which is why such an address
// needs --token.
type hostRule struct {
	port  string
	names map[string]bool // nil: any name
}

func hostRuleFor(a net.Addr) (hostRule, error) {
	host, port, err := net.SplitHostPort(a.String())
	if err != nil {
		return hostRule{}, fmt.Errorf("web: listening address %s: %w", a, err)
	}
	ip := net.ParseIP(host)
	switch {
	case ip != nil && ip.IsLoopback():
		return hostRule{port: port, names: map[string]bool{"localhost": true, "127.0.0.1": true, "::1": true, host: true}}, nil
	case ip != nil && ip.IsUnspecified():
		return hostRule{port: port}, nil
	}
	return hostRule{port: port, names: map[string]bool{host: true}}, nil
}

// allows reports whether a request's Host header names this server.
func (h hostRule) allows(hostHeader string) bool {
	host, port, err := net.SplitHostPort(hostHeader)
	if err != nil || port != h.port {
		return false
	}
	return h.names == nil || h.names[strings.ToLower(host)]
}

// displayAddr is the address to print: loopback as 127.0.0.1.
func displayAddr(a net.Addr) string {
	host, port, err := net.SplitHostPort(a.String())
	if err != nil {
		return a.String()
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port)
}

// IsLoopback reports whether addr (host:port, as --addr takes it) binds
// loopback only. A name other than localhost is not: it may resolve
// anywhere.
func IsLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// guard checks every request before it reaches a route: the Host (DNS
// rebinding), the Origin (another site's page, above all its WebSocket),
// the method, and the token (in the URL once, then in the cookie). It also
// sets the headers that keep the page to itself: a strict CSP (no inline
// script or style, nothing from elsewhere), no referrer (the URL may
// carry the token), no sniffing. No CORS header is ever set.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "+
			"connect-src 'self' ws://"+r.Host+"; base-uri 'none'; form-action 'none'; frame-ancestors 'self'")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Cache-Control", "no-store")
		s.mu.Lock()
		hosts := s.hosts
		s.mu.Unlock()
		switch {
		case !hosts.allows(r.Host):
			http.Error(w, "olly serve: this server does not answer for host "+r.Host+"; open the address olly serve printed", http.StatusMisdirectedRequest)
			return
		case !sameOrigin(r):
			http.Error(w, "olly serve: requests from another site are refused", http.StatusForbidden)
			return
		case r.Method != http.MethodGet && r.Method != http.MethodHead:
			http.Error(w, "olly serve: only GET; everything else goes over the WebSocket", http.StatusMethodNotAllowed)
			return
		}
		if t := r.URL.Query().Get("token"); t != "" {
			s.login(w, r, t)
			return
		}
		if !s.authorized(r) {
			http.Error(w, "olly serve: open the URL with the token that olly serve printed (or pass it as Authorization: Bearer)", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// sameOrigin reports whether the request comes from this server's own
// page (or from no page: a program, which has no Origin).
func sameOrigin(r *http.Request) bool {
	o := r.Header.Get("Origin")
	if o == "" {
		return true
	}
	u, err := url.Parse(o)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	return strings.EqualFold(u.Host, r.Host)
}

// authorized reports whether the request carries the token.
func (s *Server) authorized(r *http.Request) bool {
	if c, err := r.Cookie(cookieName); err == nil && s.checkToken(c.Value) {
		return true
	}
	if b, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
		return s.checkToken(b)
	}
	return false
}

// login trades the URL's token for the cookie and sends the browser to
// the same address without it, so the token leaves the address bar and
// the history.
func (s *Server) login(w http.ResponseWriter, r *http.Request, t string) {
	if !s.checkToken(t) {
		http.Error(w, "olly serve: wrong token; open the URL olly serve printed", http.StatusUnauthorized)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: s.opts.Token, Path: "/", HttpOnly: true,
		SameSite: http.SameSiteStrictMode, MaxAge: int((30 * 24 * time.Hour).Seconds())})
	q := r.URL.Query()
	q.Del("token")
	u := url.URL{Path: r.URL.Path, RawQuery: q.Encode()}
	http.Redirect(w, r, u.String(), http.StatusSeeOther)
}
