package store

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestFTSQuery(t *testing.T) {
	cases := []struct {
		name, in  string
		prefixAll bool
		want      string
	}{
		{"words", "parse config", false, `"parse" "config"`},
		{"phrase", `"exact words" here`, false, `"exact words" "here"`},
		{"prefix", "conf* x", false, `"conf"* "x"`},
		{"phrase prefix", `"exact wo"*`, false, `"exact wo"*`},
		{"prefix all", "par con", true, `"par"* "con"*`},
		{"operators are text", "a OR b NOT c", false, `"a" "OR" "b" "NOT" "c"`},
		{"quote splits a word", `say"hi`, false, `"say" "hi"`},
		{"column filter", "title:x", false, `"title:x"`},
		{"punctuation dropped", `( ) * ^ -`, false, ``},
		{"unclosed quote", `"open phrase`, false, `"open phrase"`},
		{"control chars", "a\x00b", false, `"a b"`},
		{"empty", "  ", false, ``},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := ftsQuery(tc.in, tc.prefixAll); got != tc.want {
				t.Errorf("ftsQuery(%q) = %s, want %s", tc.in, got, tc.want)
			}
		})
	}
	many := strings.Repeat("word ", 100)
	if got := ftsQuery(many, false); strings.Count(got, `"word"`) != maxQueryTerms {
		t.Errorf("terms not capped: %d", strings.Count(got, `"word"`))
	}
}

// FuzzSearchQuery: whatever a person types, search answers without an
// SQL error.
func FuzzSearchQuery(f *testing.F) {
	for _, seed := range []string{
		"parser", `"unclosed`, `a OR b`, `NEAR(a b, 3)`, `col:val`, `^start`, `*`, `"x"*`, `a""b`,
		"\x00", "é ü 日本語", `(`, `-a +b`, `a AND (b OR`, "\"\"\"", "x*y*", "\xff\xfe",
	} {
		f.Add(seed)
	}
	s := openTest(f)
	ctx := context.Background()
	newSession(f, s, "a")
	for _, text := range []string{"the parser reads tokens", "NEAR the end", "日本語のテキスト", "col val pairs"} {
		appendText(f, s, "a", "user_message", text)
		if _, err := s.AddPrompt(ctx, text, "/w"); err != nil {
			f.Fatal(err)
		}
	}
	f.Fuzz(func(t *testing.T, input string) {
		q := ftsQuery(input, false)
		if !utf8.ValidString(q) {
			t.Fatalf("ftsQuery(%q) = %q: invalid UTF-8", input, q)
		}
		if _, err := s.Search(ctx, SearchQuery{Text: input}); err != nil {
			t.Fatalf("Search(%q): %v (query %s)", input, err, q)
		}
		if _, err := s.SearchPrompts(ctx, input, "", 5); err != nil {
			t.Fatalf("SearchPrompts(%q): %v", input, err)
		}
	})
}
