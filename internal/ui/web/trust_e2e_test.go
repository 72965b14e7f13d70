package web

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/olly-agent/olly/internal/event"
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

// TestBrowserTrustPromptTwoTabs: two tabs of one session show the same
// trust cards; answering in one takes the card down in the other too
// (through the session's log: trust_resolved), while the card not yet
// answered stays in both.
func TestBrowserTrustPromptTwoTabs(t *testing.T) {
	browser := newBrowser(t)
	s := newStack(t, map[string]string{
		".mcp.json":            `{"mcpServers": {"db": {"command": "node", "args": ["tools/db.js"]}}}`,
		"tools/db.js":          "console.log(1)\n",
		".olly/settings.json":  `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"./.olly/hooks/no-rm.sh"}]}]}}`,
		".olly/hooks/no-rm.sh": "exit 0\n",
	})
	s.open(t, browser)
	other := newTab(t, browser)
	s.open(t, other)
	both := `document.querySelectorAll("#trust [data-trust-id]").length === 2`
	run(t, browser, waitFor(both))
	run(t, other, waitFor(both))
	if a, b := value(t, browser, chromedp.Evaluate[string](`document.location.search`)), value(t, other, chromedp.Evaluate[string](`document.location.search`)); a != b {
		t.Fatalf("the tabs show different sessions: %s and %s", a, b)
	}

	// "Not now" in the first tab: the other tab's card goes too, and the
	// hook card stays in both.
	run(t, browser,
		chromedp.Click(`#trust [data-trust-id^="mcp:db@"] button[data-trust-decision="not_now"]`),
		waitFor(`document.querySelectorAll("#trust [data-trust-id]").length === 1`),
	)
	run(t, other, waitFor(`!document.querySelector('#trust [data-trust-id^="mcp:db@"]') && document.querySelector('#trust [data-trust-id^="hook:"]')`))

	// "Trust" in the second tab: the first tab's last card goes.
	run(t, other,
		chromedp.Click(`#trust [data-trust-id^="hook:"] button[data-trust-decision="trust"]`),
		waitFor(`document.querySelector("#trust").hidden`),
	)
	run(t, browser, waitFor(`document.querySelector("#trust").hidden && !document.querySelector("#trust [data-trust-id]")`))

	// The answers are in the session's log, as the tabs saw them.
	evs, err := s.app.Sessions.History(context.Background(), s.sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, ev := range evs {
		if r, ok := ev.Data.(event.TrustResolved); ok {
			got = append(got, r.Kind+" "+r.Decision)
		}
	}
	if strings.Join(got, ", ") != "mcp not_now, hook trust" {
		t.Errorf("trust_resolved events in the log: %q, want the two answers in order", got)
	}
}

// TestBrowserTrustPromptShowsTheServiceLine: the card shows a server's
// command line as the service quoted it (trust.CommandLine, Run.Line),
// with the rules a shell's first word needs: a program named like an
// assignment or a reserved word is quoted, as is a word with a quote.
func TestBrowserTrustPromptShowsTheServiceLine(t *testing.T) {
	browser := newBrowser(t)
	s := newStack(t, map[string]string{
		".mcp.json": `{"mcpServers": {"a": {"command": "A=b", "args": ["x"]}, "t": {"command": "time", "args": ["it's", "k=v"]}}}`,
	})
	s.open(t, browser)
	run(t, browser, waitFor(`document.querySelectorAll("#trust [data-trust-id]").length === 2`))
	code := value(t, browser, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#trust .truns code")].map((c) => c.textContent).sort()`))
	want := []string{`'A=b' x`, `'time' 'it'\''s' k=v`}
	if strings.Join(code, "\n") != strings.Join(want, "\n") {
		t.Fatalf("command lines shown = %q, want %q", code, want)
	}
}
