package store

import (
	"context"
	"slices"
	"testing"
)

func TestPromptHistory(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	adds := []struct {
		text, ws string
		added    bool
	}{
		{"refactor the parser", "/a", true},
		{"refactor the parser", "/a", false}, // same as the previous one
		{"  refactor the parser\n", "/a", false},
		{"refactor the parser", "/b", true}, // previous in /b differs
		{"run the tests", "/a", true},
		{"refactor the parser", "/a", true}, // not the immediately previous
		{"   ", "/a", false},
		{"explain the lexer's tokens", "/b", true},
	}
	for i, a := range adds {
		added, err := s.AddPrompt(ctx, a.text, a.ws)
		if err != nil || added != a.added {
			t.Errorf("add %d %q in %s = %v, %v; want %v", i, a.text, a.ws, added, err, a.added)
		}
	}
	texts := func(ps []Prompt) []string {
		var out []string
		for _, p := range ps {
			out = append(out, p.Text)
		}
		return out
	}
	recent, err := s.RecentPrompts(ctx, "/a", 2)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"refactor the parser", "run the tests"}; !slices.Equal(texts(recent), want) {
		t.Errorf("recent /a = %v, want %v", texts(recent), want)
	}
	if all, _ := s.RecentPrompts(ctx, "", 0); len(all) != 5 {
		t.Errorf("recent everywhere = %v", texts(all))
	}
	cases := []struct {
		name, query, ws string
		want            []string
	}{
		{"prefix while typing", "pars", "/b", []string{"refactor the parser"}},
		{"stemmed", "tokens lexer", "", []string{"explain the lexer's tokens"}},
		{"all words needed", "run parser", "", nil},
		{"operators are text", "run OR (parser", "", nil},
		{"punctuation only", `"*" ( )`, "", nil},
		{"everywhere", "refactor", "", []string{"refactor the parser", "refactor the parser", "refactor the parser"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.SearchPrompts(ctx, tc.query, tc.ws, 10)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(texts(got), tc.want) {
				t.Errorf("search %q = %v, want %v", tc.query, texts(got), tc.want)
			}
		})
	}
}
