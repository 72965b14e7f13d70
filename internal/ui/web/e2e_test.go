package web

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/olly-agent/olly/internal/llm/llmtest"
)

// The end-to-end test: a person types a prompt in the page, the scripted
// model streams an answer (with a script tag in it), edits a file and asks
// to run a command; the approval is answered in the page, one hunk of the
// edit is undone in the review, and a reload shows exactly what was live.
func TestBrowserRun(t *testing.T) {
	browser := newBrowser(t)
	notes := "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\n"
	s := newStack(t, map[string]string{"notes.txt": notes, "build/out.bin": "x"})
	edited := strings.Replace(strings.Replace(notes, "a\n", "A\n", 1), "l\n", "L\n", 1)
	s.llm.Enqueue(
		llmtest.Reply(llmtest.Thinking("Edit notes, then clean up."),
			llmtest.Text("I'll edit **notes** "), llmtest.Delay(20*time.Millisecond),
			llmtest.Text("and clean up. <script>window.pwned = 1</script><img src=x onerror=\"window.pwned=2\">"),
			llmtest.ToolCall("write_file", `{"path":"notes.txt","content":`+quote(edited)+`}`)),
		llmtest.Reply(llmtest.ToolCall("run_terminal_command", `{"command":"rm -rf build"}`)),
		llmtest.Reply(llmtest.Text("Done: notes edited, "), llmtest.Delay(20*time.Millisecond), llmtest.Text("build removed. [TASK_COMPLETE]")),
	)
	s.open(t, browser)

	checkFileCompletion(t, browser)

	run(t, browser,
		chromedp.SetValue("#prompt", "edit notes and delete build"),
		chromedp.Click("#send"),
		// The approval card appears; the text before it streamed in.
		chromedp.WaitVisible(`button.approve`),
	)
	streamed := value(t, browser, chromedp.Text("#timeline"))
	if !strings.Contains(streamed, "I'll edit notes and clean up.") || !strings.Contains(streamed, "rm -rf build") {
		t.Fatalf("timeline before the approval:\n%s", streamed)
	}
	run(t, browser,
		chromedp.Click(`button.approve`),
		waitFor(`document.querySelector("#timeline .final")?.textContent.includes("build removed.")`),
		waitFor(`document.querySelector("#stop").disabled`),
	)
	if _, err := os.Stat(filepath.Join(s.ws, "build")); !os.IsNotExist(err) {
		t.Fatalf("build still there after the approval (%v)", err)
	}

	// Model output is data: its script never ran, its tags are gone.
	pwned := value(t, browser, chromedp.Evaluate[bool](`window.pwned !== undefined`))
	scripts := value(t, browser, chromedp.Evaluate[int](`document.querySelectorAll("#timeline script, #timeline img, #timeline [onerror]").length`))
	if pwned || scripts != 0 {
		t.Fatalf("model output ran or kept its tags: pwned %v, %d elements", pwned, scripts)
	}

	// Undo the first hunk (a → A) in the review; the second stays.
	run(t, browser,
		chromedp.Click(`#timeline button[data-review]`),
		chromedp.WaitVisible(`#review .hunk[data-hunk="1"] button[data-rcmd="undo"]`),
	)
	pos := value(t, browser, chromedp.Text("#review .rpos"))
	if pos != "change 1 of 2" {
		t.Errorf("review position %q, want change 1 of 2", pos)
	}
	checkSideBySide(t, browser)
	run(t, browser,
		chromedp.Click(`#review .hunk[data-hunk="1"] button[data-rcmd="undo"]`),
		waitFor(`document.querySelector("#review .rpos")?.textContent === "change 1 of 1"`),
	)
	got, err := os.ReadFile(filepath.Join(s.ws, "notes.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Replace(notes, "l\n", "L\n", 1); string(got) != want {
		t.Fatalf("notes.txt after undoing hunk 1:\n%s\nwant:\n%s", got, want)
	}

	// Reload: the timeline is the one that was live.
	run(t, browser, chromedp.Sleep(200*time.Millisecond)) // let the last frames land
	live := value(t, browser, chromedp.InnerHTML("#timeline"))
	run(t, browser, chromedp.Reload(), waitFor(`window.ollyStats && ollyStats.ready > 0 && ollyStats.frames > 0 && !ollyStats.loading`))
	reloaded := value(t, browser, chromedp.InnerHTML("#timeline"))
	if live != reloaded {
		t.Fatalf("the reloaded timeline differs from the live one:\nlive:\n%s\nreloaded:\n%s", live, reloaded)
	}
	if !strings.Contains(reloaded, "build removed.") || !strings.Contains(reloaded, "approved") {
		t.Fatalf("the reloaded timeline lacks the run:\n%s", reloaded)
	}
}

// quote writes s as a JSON string.
func quote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return `"` + r.Replace(s) + `"`
}

// Two tabs on one session: both see the run and the same pending
// approval; the one answering first wins and the other shows the answer.
func TestBrowserTwoTabs(t *testing.T) {
	browser := newBrowser(t)
	s := newStack(t, map[string]string{"build/out.bin": "x"})
	s.llm.Enqueue(
		llmtest.Reply(llmtest.Text("Cleaning up."), llmtest.ToolCall("run_terminal_command", `{"command":"rm -rf build"}`)),
		llmtest.Reply(llmtest.Text("Removed. [TASK_COMPLETE]")),
	)
	s.open(t, browser)
	other := newTab(t, browser)
	s.open(t, other)

	t.Cleanup(func() {
		if t.Failed() {
			for _, r := range s.llm.Requests() {
				if n := len(r.Messages); n > 0 {
					t.Logf("request %s: last message %+v", r.Path, r.Messages[n-1])
				}
			}
		}
	})
	run(t, browser, chromedp.SetValue("#prompt", "delete build"), chromedp.Click("#send"))
	for _, tab := range []context.Context{browser, other} {
		run(t, tab, chromedp.WaitVisible(`button.approve`), waitFor(`!document.querySelector("#stop").disabled`))
	}
	// The second tab answers, with an edited command.
	run(t, other,
		chromedp.SetValue(`textarea.cmd`, "rm -r build"),
		chromedp.Click(`button.approve`),
		waitFor(`document.querySelector("#timeline .final")?.textContent.includes("Removed.")`),
	)
	// The first tab shows the same answer and the same end, without its
	// own buttons.
	run(t, browser, waitFor(`document.querySelector("#timeline .final")?.textContent.includes("Removed.")`))
	first := value(t, browser, chromedp.InnerHTML("#timeline"))
	second := value(t, other, chromedp.InnerHTML("#timeline"))
	if first != second {
		t.Fatalf("the tabs differ:\nfirst:\n%s\nsecond:\n%s", first, second)
	}
	if !strings.Contains(first, "rm -r build") || strings.Contains(first, `class="approve"`) {
		t.Fatalf("the first tab does not show the edited, answered approval:\n%s", first)
	}
	if _, err := os.Stat(filepath.Join(s.ws, "build")); !os.IsNotExist(err) {
		t.Fatalf("build still there (%v)", err)
	}
}

// checkSideBySide switches the open review to side by side: the old line
// left of the new one, with line numbers (approval cards: render_test.go);
// then back to unified.
func checkSideBySide(t *testing.T, browser context.Context) {
	t.Helper()
	run(t, browser, chromedp.Click("#diff-mode"), chromedp.WaitVisible(`#review .hunk[data-hunk="1"] table.diff.split`))
	row := value(t, browser, chromedp.Evaluate[string](`[...document.querySelectorAll('#review .hunk[data-hunk="1"] table.diff.split tr')].find((r) => r.querySelector("td.del"))?.innerText`))
	if row != "1\ta\t1\tA" {
		t.Errorf("side-by-side row %q, want 1 a | 1 A", row)
	}
	run(t, browser, chromedp.Click("#diff-mode"), chromedp.WaitVisible(`#review .hunk[data-hunk="1"] pre.diff.unified`))
}

// checkFileCompletion types @note: the server's complete_files offers
// notes.txt, which a click puts in the prompt.
func checkFileCompletion(t *testing.T, browser context.Context) {
	t.Helper()
	run(t, browser, chromedp.SetValue("#prompt", "@note"))
	value(t, browser, chromedp.Evaluate[bool](`document.querySelector("#prompt").dispatchEvent(new Event("input"))`))
	run(t, browser, waitFor(`document.querySelector("#completions div[data-i]")?.textContent === "notes.txt"`),
		chromedp.Click(`#completions div[data-i="0"]`))
	if v := value(t, browser, chromedp.Value("#prompt")); v != "@notes.txt " {
		t.Errorf("prompt after completing: %q", v)
	}
}
