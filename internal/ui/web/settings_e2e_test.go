package web

import (
	"context"
	"github.com/olly-agent/olly/internal/llm/llmtest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// The settings page: the connection test reports the server's version and
// latency; the token is written to the global file and never comes back
// to the page; a model is disabled and capped; approval.mode cannot be
// put in the project file; a sensitive-file pattern is added.
func TestBrowserSettings(t *testing.T) {
	browser := newBrowser(t)
	s := newStack(t, nil)
	global := filepath.Join(s.home, "config", "olly", "config.yaml")
	s.open(t, browser)
	run(t, browser,
		chromedp.Click("#open-settings"),
		chromedp.WaitVisible(`#settings [data-input="baseUrl"]`),
	)
	if v := value(t, browser, chromedp.Value(`#settings [data-input="baseUrl"]`)); v != s.llm.URL() {
		t.Errorf("baseUrl shows %q, want %q", v, s.llm.URL())
	}
	run(t, browser,
		chromedp.Click(`#settings [data-test]`),
		waitFor(`document.querySelector("#settings [data-test-result]")?.className.includes("ok")`),
	)
	res := value(t, browser, chromedp.Text(`#settings [data-test-result]`))
	if !strings.Contains(res, "version 0.12.6") || !strings.Contains(res, " ms") || !strings.Contains(res, "1 model") {
		t.Errorf("connection test: %q", res)
	}

	// The token: saved, never shown again.
	const secret = "tok-0123456789-secret"
	run(t, browser,
		chromedp.SetValue(`#settings [data-token]`, secret),
		chromedp.Click(`#settings [data-save-token]`),
		waitFor(`document.querySelector("#settings [data-token]")?.placeholder.startsWith("a token is set")`),
	)
	toastSays(t, browser, "apiKey: saved in "+global)
	if b, _ := os.ReadFile(global); !strings.Contains(string(b), secret) {
		t.Errorf("the global file lacks the token:\n%s", b)
	}
	page := value(t, browser, chromedp.Evaluate[string](`document.documentElement.outerHTML + document.querySelector("#settings [data-token]").value`))
	if strings.Contains(page, secret) {
		t.Error("the page holds the token after saving it")
	}

	settingsModels(t, s, browser)

	// Approvals: approval.mode is user-only; saved in the global file.
	run(t, browser,
		chromedp.Click(`#settings button[data-tab="approvals"]`),
		chromedp.WaitVisible(`#settings [data-input="approval.mode"]`),
	)
	if dis := value(t, browser, chromedp.Evaluate[bool](`document.querySelector('#settings [data-scope="approval.mode"] option[value="project"]').disabled`)); !dis {
		t.Error("approval.mode may be put in the project file")
	}
	n := drawCount(t, browser)
	run(t, browser,
		chromedp.SetValue(`#settings [data-input="approval.mode"]`, "ask"),
		chromedp.Click(`#settings button[data-save="approval.mode"]`),
	)
	toastHas(t, browser, "approval.mode: saved", "olly reads approval.mode when it starts: restart it")
	redrawn(t, browser, n)
	if !value(t, browser, chromedp.Evaluate[bool](`!!document.querySelector('#settings [data-key="approval.mode"] .srestart')`)) {
		t.Error("approval.mode, read when olly starts, is not marked as needing a restart")
	}
	if b, _ := os.ReadFile(global); !strings.Contains(string(b), "ask") {
		t.Errorf("the global file lacks approval.mode ask:\n%s", b)
	}

	// Sensitive files: add a pattern.
	run(t, browser,
		chromedp.Click(`#settings button[data-tab="files"]`),
		chromedp.WaitVisible(`#settings [data-add-rule]`),
		chromedp.Click(`#settings [data-add-rule]`),
		chromedp.SetValue(`#settings [data-rules] tr:last-child .rpat`, "**/secrets/**"),
	)
	n = drawCount(t, browser)
	run(t, browser, chromedp.Click(`#settings [data-save-rules]`))
	toastSays(t, browser, "agent.sensitiveFilePatterns: saved")
	redrawn(t, browser, n)
	if b, _ := os.ReadFile(global); !strings.Contains(string(b), "**/secrets/**") || !strings.Contains(string(b), "**/.env*") {
		t.Errorf("the global file lacks the new pattern or the old ones:\n%s", b)
	}
	settingsServerChange(t, s, browser)
}

// settingsServerChange points baseUrl at another server: the page says it
// applies from the next turn, the models tab lists the new server's
// models, and the running olly talks to it.
func settingsServerChange(t *testing.T, s *stack, browser context.Context) {
	t.Helper()
	other := llmtest.New(t)
	other.AddModel("elsewhere", llmtest.Caps("completion", "tools"), llmtest.ContextLength(8192))
	run(t, browser,
		chromedp.Click(`#settings button[data-tab="connection"]`),
		chromedp.WaitVisible(`#settings [data-input="baseUrl"]`),
	)
	if value(t, browser, chromedp.Evaluate[bool](`!!document.querySelector('#settings [data-key="baseUrl"] .srestart')`)) {
		t.Error("baseUrl, which applies from the next turn, is marked as needing a restart")
	}
	n := drawCount(t, browser)
	run(t, browser,
		chromedp.SetValue(`#settings [data-input="baseUrl"]`, other.URL()),
		chromedp.Click(`#settings button[data-save="baseUrl"]`),
	)
	toastHas(t, browser, "baseUrl: saved", "applies from the next turn")
	redrawn(t, browser, n)
	run(t, browser,
		chromedp.Click(`#settings button[data-tab="models"]`),
		chromedp.WaitVisible(`#settings tr[data-model="elsewhere:latest"]`),
	)
	if got := s.app.Provider.BaseURL(); got != other.URL() {
		t.Errorf("the running olly talks to %s, want %s", got, other.URL())
	}
}

// settingsModels disables the model and caps its context in the models tab.
func settingsModels(t *testing.T, s *stack, browser context.Context) {
	t.Helper()
	// Models: disable the model, cap its context.
	run(t, browser,
		chromedp.Click(`#settings button[data-tab="models"]`),
		chromedp.WaitVisible(`#settings tr[data-model="coder:latest"]`),
	)
	n := value(t, browser, chromedp.Evaluate[string](`document.querySelector("#settings").dataset.rendered`))
	run(t, browser,
		chromedp.Click(`#settings input[data-enable="coder:latest"]`),
		waitFor(`document.querySelector("#settings").dataset.rendered !== "`+n+`"`),
		waitFor(`document.querySelector('#settings input[data-enable="coder:latest"]')?.checked === false`),
		chromedp.SetValue(`#settings input[data-cap="coder:latest"]`, "16384"),
	)
	value(t, browser, chromedp.Evaluate[bool](`document.querySelector('#settings input[data-cap="coder:latest"]').dispatchEvent(new Event("change", {bubbles: true}))`))
	toastSays(t, browser, "coder:latest: olly requests 16384 tokens (cap)")
	run(t, browser, waitFor(`document.querySelector('#settings tr[data-model="coder:latest"]')?.textContent.includes("16384 (cap)")`))
	ms, err := s.app.Store.Models(context.Background())
	if err != nil || len(ms) != 1 || ms[0].Enabled || ms[0].NumCtxCap != 16384 {
		t.Errorf("models in the store: %+v (%v)", ms, err)
	}
}

// toastSays waits for a message in the page's toast and fails with the
// message shown when it is another.
func toastSays(t *testing.T, ctx context.Context, prefix string) {
	t.Helper()
	toastHas(t, ctx, prefix, "")
}

// toastHas is toastSays with words the message must also hold.
func toastHas(t *testing.T, ctx context.Context, prefix, words string) {
	t.Helper()
	run(t, ctx, waitFor(`!document.querySelector("#toast").hidden`))
	if got := value(t, ctx, chromedp.Text("#toast")); !strings.HasPrefix(got, prefix) || !strings.Contains(got, words) {
		t.Fatalf("the page says %q, want %q… with %q", got, prefix, words)
	}
	value(t, ctx, chromedp.Evaluate[bool](`document.querySelector("#toast").hidden = true`))
}

// drawCount is how many times the settings panel was drawn. A save shows
// its toast and then draws the panel again (settings.js: set, refresh), so
// an action right after the toast can hit a node the redraw replaces
// ("Could not find node with given id"): wait for it with redrawn.
func drawCount(t *testing.T, browser context.Context) string {
	t.Helper()
	return value(t, browser, chromedp.Evaluate[string](`document.querySelector("#settings").dataset.rendered`))
}

// redrawn waits until the panel was drawn again since drawCount said n.
func redrawn(t *testing.T, browser context.Context, n string) {
	t.Helper()
	run(t, browser, waitFor(`document.querySelector("#settings").dataset.rendered !== "`+n+`"`))
}
