package agent

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm/llmtest"
	"github.com/olly-agent/olly/internal/session"
)

func TestCleanTitle(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Fix the parser crash", "Fix the parser crash"},
		{`"Fix the parser crash."`, "Fix the parser crash"},
		{"<think>The user wants a title.\nMaybe…</think>\n\n“Add retries to the client”", "Add retries to the client"},
		{"<THINK>hmm</THINK>Title: **Rename the config loader**", "Rename the config loader"},
		{"# Session title: `Speed up search`\nExplanation: because…", "Speed up search"},
		{"reasoning the server half-stripped</think>Refactor store writes", "Refactor store writes"},
		{"<think>never finished reasoning about", ""},
		{"  \n\n  ", ""},
		{"'''", ""},
		{"Implement the complete end-to-end migration of every session storage backend to the new format", "Implement the complete end-to-end migration of every…"},
		{"Fix\x07 the\tbell", "Fix the bell"},
	}
	for _, tt := range tests {
		if got := cleanTitle(tt.in); got != tt.want {
			t.Errorf("cleanTitle(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// titleHarness is a session service with model titles over the harness's
// store, agent and fake server. The fake answers title requests with
// title and the agent's requests with a final answer.
func titleHarness(t *testing.T, cfg TitleConfig, title llmtest.Response) (*harness, *session.Service, *syncBuffer) {
	h := newHarness(t, true, harnessOpt{})
	h.srv.AddModel("titler", llmtest.Caps("completion", "thinking"), llmtest.ContextLength(8192))
	h.srv.Handle(func(r *llmtest.Request) llmtest.Response {
		if isTitleRequest(r) {
			return title
		}
		return llmtest.Reply(llmtest.Text("Done. [TASK_COMPLETE]"))
	})
	var logs syncBuffer
	svc, err := session.New(session.Deps{Store: h.store, Runner: h.agent, Titles: NewTitleGenerator(h.agent, cfg),
		TitleTimeout: 300 * time.Millisecond, Log: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = svc.Close() })
	return h, svc, &logs
}

func TestTitleModes(t *testing.T) {
	const prompt = "the parser crashes when the input is empty, fix it please"
	first := session.TitleFromPrompt(prompt)
	tests := []struct {
		name  string
		cfg   TitleConfig
		reply llmtest.Response
		want  string
		model string // the title request's model ("": no request)
		log   string
	}{
		{name: "firstMessage: no model call", cfg: TitleConfig{Mode: TitlesFirstMessage},
			reply: llmtest.Reply(llmtest.Text("unused")), want: first},
		{name: "currentModel: the session's model", cfg: TitleConfig{Mode: TitlesCurrentModel},
			reply: llmtest.Reply(llmtest.Text(`"Fix parser crash on empty input."`)), want: "Fix parser crash on empty input", model: testModel},
		{name: "selectModel: the title model, reasoning stripped", cfg: TitleConfig{Mode: TitlesSelectModel, Model: "titler"},
			reply: llmtest.Reply(llmtest.Text("<think>A short title about the parser.</think>\n\nTitle: Empty-input parser crash")),
			want:  "Empty-input parser crash", model: "titler"},
		{name: "selectModel without a model: first title kept, logged", cfg: TitleConfig{Mode: TitlesSelectModel},
			reply: llmtest.Reply(llmtest.Text("unused")), want: first, log: "sessionTitleModel is empty"},
		{name: "a model that does not answer in 15 s (here 300 ms)", cfg: TitleConfig{Mode: TitlesCurrentModel},
			reply: llmtest.Hang(), want: first, model: testModel, log: "did not answer in time"},
		{name: "an answer with no title", cfg: TitleConfig{Mode: TitlesCurrentModel},
			reply: llmtest.Reply(llmtest.Text("<think>I cannot decide")), want: first, model: testModel, log: "no usable title"},
		{name: "a failing model", cfg: TitleConfig{Mode: TitlesCurrentModel},
			reply: llmtest.Status(400, "no titles today"), want: first, model: testModel, log: "no titles today"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, svc, logs := titleHarness(t, tt.cfg, tt.reply)
			ctx := context.Background()
			sess, err := svc.Create(ctx, session.CreateOptions{Workspace: h.dir})
			if err != nil {
				t.Fatal(err)
			}
			// The turn does not wait for the title (the session package's
			// tests hold a generator until the turn has ended).
			res, err := svc.Prompt(ctx, sess.ID, session.PromptInput{Text: prompt})
			if err != nil || res.Status != event.FinishDone {
				t.Fatalf("turn: %+v, %v", res, err)
			}
			waitTitle(t, svc, sess.ID, tt.want, tt.log, logs)
			var titleReqs []*llmtest.Request
			for _, r := range h.chats() {
				if isTitleRequest(r) {
					titleReqs = append(titleReqs, r)
				}
			}
			switch {
			case tt.model == "" && len(titleReqs) != 0:
				t.Errorf("%d title requests, want none", len(titleReqs))
			case tt.model != "" && (len(titleReqs) != 1 || titleReqs[0].Model != tt.model):
				t.Fatalf("title requests: %d (want one for %s)", len(titleReqs), tt.model)
			case tt.model != "":
				r := titleReqs[0]
				if r.Messages[1].Content != prompt || len(r.Tools) != 0 || r.Options.NumCtx == nil {
					t.Errorf("title request: %+v", r.Messages)
				}
				// The agent's num_ctx for the model, so Ollama keeps it
				// loaded; thinking off for a model that thinks.
				if tt.model == "titler" && (*r.Options.NumCtx != 8192 || r.Think == nil || r.Think.Enabled) {
					t.Errorf("title request options: num_ctx %d, think %+v", *r.Options.NumCtx, r.Think)
				}
			}
		})
	}
}

// waitTitle waits until the session's title is want (and log holds
// logged), or fails.
func waitTitle(t *testing.T, svc *session.Service, id, want, logged string, logs *syncBuffer) {
	t.Helper()
	// The session row and the title_changed event are written one after
	// the other: wait until both say want.
	deadline := time.Now().Add(5 * time.Second)
	for {
		got, err := svc.Open(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		evs, err := svc.History(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		var titles []string
		for _, ev := range evs {
			if p, ok := ev.Data.(event.TitleChanged); ok {
				titles = append(titles, p.Title)
			}
		}
		lastEvent := len(titles) > 0 && titles[len(titles)-1] == want
		if got.Title == want && lastEvent && (logged == "" || strings.Contains(logs.String(), logged)) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("title %q, title events %q, want %q; log:\n%s", got.Title, titles, want, logs.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func FuzzCleanTitle(f *testing.F) {
	for _, s := range []string{"Fix it", `"Quoted."`, "<think>x</think>Title: y", "a\nb", "</think>z", "«»", "# **t**"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := cleanTitle(s)
		if strings.ContainsAny(got, "\n\r") || utf8.RuneCountInString(got) > 60 {
			t.Fatalf("cleanTitle(%q) = %q: not one bounded line", s, got)
		}
		if got != strings.TrimSpace(got) || strings.Contains(strings.ToLower(got), "<think>") {
			t.Fatalf("cleanTitle(%q) = %q", s, got)
		}
		if utf8.ValidString(s) && !utf8.ValidString(got) {
			t.Fatalf("cleanTitle(%q) = %q: invalid UTF-8", s, got)
		}
	})
}
