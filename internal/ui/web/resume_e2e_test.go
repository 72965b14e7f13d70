package web

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/olly-agent/olly/internal/llm/llmtest"
)

// The connection drops while an answer streams: the page reconnects,
// resumes from the last event it holds (no second reset: only what
// changed comes), and ends with exactly the timeline a reload shows — no
// item twice, none lost.
func TestBrowserResume(t *testing.T) {
	browser := newBrowser(t)
	s := newStack(t, nil)
	var parts []llmtest.Part
	for i := 1; i <= 12; i++ {
		text := fmt.Sprintf("part %d. ", i)
		if i == 12 {
			text += "[TASK_COMPLETE]"
		}
		parts = append(parts, llmtest.Text(text), llmtest.Delay(60*time.Millisecond))
	}
	s.llm.Enqueue(llmtest.Reply(parts...))
	s.open(t, browser)
	run(t, browser,
		chromedp.SetValue("#prompt", "count to twelve"),
		chromedp.Click("#send"),
		waitFor(`document.querySelector("#timeline")?.textContent.includes("part 2.")`),
	)
	s.srv.dropConnections()
	run(t, browser,
		waitFor(`ollyStats.resumed >= 1`),
		waitFor(`document.querySelector("#timeline .final")?.textContent.includes("part 12.")`),
		waitFor(`document.querySelector("#stop").disabled`),
		chromedp.Sleep(200*time.Millisecond), // the last frames land
	)
	if n := value(t, browser, chromedp.Evaluate[int](`ollyStats.resets`)); n != 1 {
		t.Errorf("%d resets: the reconnect started over instead of resuming", n)
	}
	live := value(t, browser, chromedp.InnerHTML("#timeline"))
	if u, a := strings.Count(live, `class="msg user"`), strings.Count(live, `class="msg assistant`); u != 1 || a != 1 {
		t.Errorf("%d prompts and %d answers after resuming, want one each:\n%s", u, a, live)
	}
	run(t, browser, chromedp.Reload(), waitFor(`window.ollyStats && ollyStats.ready > 0 && ollyStats.frames > 0 && !ollyStats.loading`))
	if reloaded := value(t, browser, chromedp.InnerHTML("#timeline")); live != reloaded {
		t.Fatalf("the resumed timeline differs from a reload:\nresumed:\n%s\nreloaded:\n%s", live, reloaded)
	}
}

// olly serve restarts (on the same store and address) while an answer
// streams: the running turn ends canceled and is recorded; the page
// reconnects to the new server, resumes from the last event it holds and
// shows exactly what a reload shows.
func TestBrowserResumeAfterRestart(t *testing.T) {
	browser := newBrowser(t)
	s := newStack(t, nil)
	var parts []llmtest.Part
	for i := 1; i <= 40; i++ {
		parts = append(parts, llmtest.Text(fmt.Sprintf("part %d. ", i)), llmtest.Delay(50*time.Millisecond))
	}
	s.llm.Enqueue(llmtest.Reply(parts...))
	s.open(t, browser)
	run(t, browser,
		chromedp.SetValue("#prompt", "count to forty"),
		chromedp.Click("#send"),
		waitFor(`document.querySelector("#timeline")?.textContent.includes("part 2.")`),
	)
	s.restart(t)
	run(t, browser,
		waitFor(`ollyStats.resumed >= 1`),
		waitFor(`document.querySelector("#stop").disabled`),
		chromedp.Sleep(200*time.Millisecond),
	)
	if n := value(t, browser, chromedp.Evaluate[int](`ollyStats.resets`)); n != 1 {
		t.Errorf("%d resets: the reconnect started over instead of resuming", n)
	}
	live := value(t, browser, chromedp.InnerHTML("#timeline"))
	if !strings.Contains(live, "canceled") && !strings.Contains(live, "interrupted") {
		t.Errorf("the restarted turn does not show how it ended:\n%s", live)
	}
	run(t, browser, chromedp.Reload(), waitFor(`window.ollyStats && ollyStats.ready > 0 && ollyStats.frames > 0 && !ollyStats.loading`))
	if reloaded := value(t, browser, chromedp.InnerHTML("#timeline")); live != reloaded {
		t.Fatalf("the resumed timeline differs from a reload:\nresumed:\n%s\nreloaded:\n%s", live, reloaded)
	}
}
