package web

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"go.uber.org/goleak"
)

// browserTimeout bounds each browser test: a guard against a hang, not a
// speed bar. TestBrowserSettings, the longest, took over 60 s at load 30
// (CI beside five developers' builds).
const browserTimeout = 180 * time.Second

// The browser is started once for the package's tests (it takes seconds
// on a loaded machine); each test works in tabs of its own.
var shared struct {
	once   sync.Once
	ctx    context.Context
	cancel func()
	dir    string
	skip   string
	err    error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.cancel != nil {
		shared.cancel()
	}
	if shared.dir != "" {
		_ = os.RemoveAll(shared.dir)
	}
	if code == 0 {
		// regexp2 (chroma's lexers) keeps a clock goroutine for its
		// timeouts, which ends by itself a while after the last match.
		if err := goleak.Find(goleak.IgnoreAnyFunction("github.com/dlclark/regexp2/v2.runClock")); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// startBrowser starts headless Chromium with a fresh profile. The flags
// keep it off the network (this machine's is closed) and quick to start.
func startBrowser() {
	path := ""
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			path = p
			break
		}
	}
	if path == "" {
		shared.skip = "no Chromium: install it (apt-get install -y chromium) to run the browser tests"
		return
	}
	dir, err := os.MkdirTemp("", "olly-web-chromium-")
	if err != nil {
		shared.err = err
		return
	}
	shared.dir = dir
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck, chromedp.UserDataDir(dir),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.WindowSize(1200, 900),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(actx)
	shared.ctx = ctx
	shared.cancel = func() {
		cancelCtx()
		cancelAlloc()
	}
	shared.err = chromedp.Do(ctx) // starts the browser
}

// newBrowser returns a new tab of the shared browser, or skips the test
// where there is no Chromium.
func newBrowser(t testing.TB) context.Context {
	t.Helper()
	shared.once.Do(startBrowser)
	switch {
	case shared.skip != "":
		t.Skip(shared.skip)
	case shared.err != nil:
		t.Fatalf("start Chromium: %v", shared.err)
	}
	ctx, cancel := chromedp.NewContext(shared.ctx)
	ctx, cancelTimeout := context.WithTimeout(ctx, browserTimeout)
	t.Cleanup(func() {
		cancelTimeout()
		cancel()
	})
	return ctx
}

// newTab opens another tab of the same browser (same cookies).
func newTab(t testing.TB, browser context.Context) context.Context {
	t.Helper()
	ctx, cancel := chromedp.NewContext(browser)
	t.Cleanup(cancel)
	return ctx
}

// open loads the page with the token and waits until it is connected and
// shows its timeline.
func (s *stack) open(t testing.TB, ctx context.Context) {
	t.Helper()
	run(t, ctx, chromedp.Navigate(s.url), waitFor(`window.ollyStats && ollyStats.ready > 0 && ollyStats.frames > 0 && !ollyStats.loading`))
}

func run(t testing.TB, ctx context.Context, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, actions...); err != nil {
		t.Fatal(err)
	}
}

// value runs an action that returns a value.
func value[T any](t testing.TB, ctx context.Context, a chromedp.Action[T]) T {
	t.Helper()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// waitFor polls a JavaScript condition in the page.
func waitFor(expr string) chromedp.Action[chromedp.Void] {
	poll := chromedp.Poll[bool]("!!("+expr+")", chromedp.WithPollingInterval(10*time.Millisecond), chromedp.WithPollingTimeout(30*time.Second))
	return func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		_, err := poll(ctx, tg)
		return chromedp.Void{}, err
	}
}
