package web

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/olly-agent/olly/internal/trust"
)

// TestBrowserTrustPrompt: a workspace with a project MCP server and a
// project hook file nobody trusted shows one card for each, with what it
// would run and the project files fingerprinted; "Never ask again" on the
// server and "Trust" on the hooks are recorded in the trust store as such,
// and the cards go away.
func TestBrowserTrustPrompt(t *testing.T) {
	browser := newBrowser(t)
	s := newStack(t, map[string]string{
		".mcp.json":            `{"mcpServers": {"db": {"command": "node", "args": ["tools/db.js", "--port", "5 4"], "env": {"DB": "dev"}}}}`,
		"tools/db.js":          "console.log(1)\n",
		".olly/settings.json":  `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"./.olly/hooks/no-rm.sh","timeout":10}]}]}}`,
		".olly/hooks/no-rm.sh": "exit 0\n",
	})
	s.open(t, browser)
	run(t, browser, waitFor(`document.querySelectorAll("#trust [data-trust-id]").length === 2`))
	text := value(t, browser, chromedp.Text(`#trust`))
	for _, want := range []string{
		`Trust the MCP server “db” of .mcp.json?`, `node tools/db.js --port '5 4'`, "DB=dev", "tools/db.js",
		"Trust the hooks of .olly/settings.json?", "PreToolUse (Bash)", "./.olly/hooks/no-rm.sh", ".olly/hooks/no-rm.sh",
		"fingerprinted", "Not now", "Never ask again",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the trust cards lack %q:\n%s", want, text)
		}
	}
	run(t, browser,
		chromedp.Click(`#trust [data-trust-id^="mcp:db@"] button[data-trust-decision="never"]`),
		waitFor(`document.querySelectorAll("#trust [data-trust-id]").length === 1`),
		chromedp.Click(`#trust [data-trust-id^="hook:"] button[data-trust-decision="trust"]`),
		waitFor(`document.querySelector("#trust").hidden && !document.querySelector("#trust [data-trust-id]")`),
	)
	st, err := trust.Open(trust.Path(filepath.Join(s.home, "state", "olly")))
	if err != nil {
		t.Fatal(err)
	}
	reqs, err := s.app.TrustRequests(context.Background(), s.sess.ID)
	if err != nil || len(reqs) != 0 {
		t.Fatalf("requests after answering: %+v, %v", reqs, err)
	}
	es, err := st.Entries(s.ws)
	if err != nil || len(es) != 1 || es[0].Kind != trust.KindHook || es[0].Name != ".olly/settings.json" {
		t.Fatalf("trusted entries = %+v, %v; want the hook file only", es, err)
	}
}
