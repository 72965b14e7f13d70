package web

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

func TestGuard(t *testing.T) {
	s := newStack(t, nil)
	port := s.ln.Addr().(interface{ String() string }).String()
	port = port[strings.LastIndex(port, ":")+1:]
	cookie := "olly_token=" + s.srv.Token()
	tests := []struct {
		name   string
		path   string
		header http.Header
		want   int
	}{
		{"no token", "/", nil, http.StatusUnauthorized},
		{"wrong token", "/?token=nope", nil, http.StatusUnauthorized},
		{"wrong cookie", "/", http.Header{"Cookie": {"olly_token=nope"}}, http.StatusUnauthorized},
		{"token in the URL: to the cookie", "/?token=" + s.srv.Token(), nil, http.StatusSeeOther},
		{"cookie", "/", http.Header{"Cookie": {cookie}}, http.StatusOK},
		{"bearer", "/assets/app.js", http.Header{"Authorization": {"Bearer " + s.srv.Token()}}, http.StatusOK},
		{"localhost by name", "/", http.Header{"Cookie": {cookie}, "Host": {"localhost:" + port}}, http.StatusOK},
		{"foreign host (DNS rebinding)", "/", http.Header{"Cookie": {cookie}, "Host": {"evil.example:" + port}}, http.StatusMisdirectedRequest},
		{"foreign host, right token in the URL", "/?token=" + s.srv.Token(), http.Header{"Host": {"evil.example:" + port}}, http.StatusMisdirectedRequest},
		{"loopback, other port", "/", http.Header{"Cookie": {cookie}, "Host": {"127.0.0.1:1"}}, http.StatusMisdirectedRequest},
		{"foreign origin", "/", http.Header{"Cookie": {cookie}, "Origin": {"http://evil.example"}}, http.StatusForbidden},
		{"foreign origin on the websocket", "/ws", http.Header{"Cookie": {cookie}, "Origin": {"http://evil.example"},
			"Connection": {"Upgrade"}, "Upgrade": {"websocket"}, "Sec-Websocket-Version": {"13"}, "Sec-Websocket-Key": {"dGhlIHNhbXBsZSBub25jZQ=="}}, http.StatusForbidden},
		{"null origin", "/", http.Header{"Cookie": {cookie}, "Origin": {"null"}}, http.StatusForbidden},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp := s.get(t, tc.path, tc.header)
			if resp.StatusCode != tc.want {
				t.Fatalf("status %d, want %d", resp.StatusCode, tc.want)
			}
			if v := resp.Header.Get("Access-Control-Allow-Origin"); v != "" {
				t.Errorf("CORS header set: %q", v)
			}
			csp := resp.Header.Get("Content-Security-Policy")
			if !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe-inline") {
				t.Errorf("CSP %q: want scripts from the server only", csp)
			}
		})
	}

	t.Run("the cookie", func(t *testing.T) {
		resp := s.get(t, "/?token="+s.srv.Token()+"&session=x", nil)
		c := resp.Cookies()
		if len(c) != 1 || c[0].Name != cookieName || !c[0].HttpOnly || c[0].SameSite != http.SameSiteStrictMode || c[0].Value != s.srv.Token() {
			t.Fatalf("cookies %+v: want one HttpOnly SameSite=Strict token cookie", c)
		}
		if loc := resp.Header.Get("Location"); strings.Contains(loc, "token") || !strings.Contains(loc, "session=x") {
			t.Errorf("redirected to %q: want the address without the token", loc)
		}
	})

	t.Run("websocket: own origin connects, a foreign one is refused", func(t *testing.T) { checkWebSocketGuard(t, s, cookie) })
}

func TestServeOptions(t *testing.T) {
	for addr, want := range map[string]bool{"127.0.0.1:7700": true, "localhost:1": true, "[::1]:80": true,
		"0.0.0.0:7700": false, ":7700": false, "192.168.1.2:7700": false, "example.com:80": false, "nonsense": false} {
		if got := IsLoopback(addr); got != want {
			t.Errorf("IsLoopback(%q) = %v, want %v", addr, got, want)
		}
	}
}

// checkWebSocketGuard dials the WebSocket with a foreign origin, without a
// token, then as the page does: only the last connects and gets its frames.
func checkWebSocketGuard(t *testing.T, s *stack, cookie string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	wsURL := "ws://" + s.ln.Addr().String() + "/ws"
	_, resp, err := websocket.Dial(ctx, wsURL, &websocket.DialOptions{HTTPHeader: http.Header{"Cookie": {cookie}, "Origin": {"http://evil.example"}}})
	if err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("foreign origin: err %v, response %v: want 403", err, resp)
	}
	_, resp, err = websocket.Dial(ctx, wsURL, &websocket.DialOptions{HTTPHeader: http.Header{"Origin": {s.base()}}})
	if err == nil || resp == nil || resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("no token: err %v: want 401", err)
	}
	c, _, err := websocket.Dial(ctx, wsURL, &websocket.DialOptions{HTTPHeader: http.Header{"Cookie": {cookie}, "Origin": {s.base()}}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	// The first frames: ready and the timeline, in either order.
	seen := map[string]bool{}
	for len(seen) < 2 {
		_, b, err := c.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case strings.Contains(string(b), `"type":"ready"`):
			seen["ready"] = true
		case strings.Contains(string(b), `"type":"web_timeline"`):
			seen["timeline"] = true
		}
	}
	c.Close(websocket.StatusNormalClosure, "")
}
