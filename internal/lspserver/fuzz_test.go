package lspserver

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/olly-agent/olly/internal/lsp"
)

func rangeOf(l1, c1, l2, c2 uint32) *lsp.Range {
	return &lsp.Range{Start: lsp.Position{Line: l1, Character: c1}, End: lsp.Position{Line: l2, Character: c2}}
}

// FuzzWindows: the windows are the text just before and after the cursor,
// within their budgets, on rune boundaries.
func FuzzWindows(f *testing.F) {
	f.Add("package main\n\nfunc f() {\n\t\n}\n", 25, 10, 5)
	f.Add("ééé\r\n\x00", 3, 1, 1)
	f.Fuzz(func(t *testing.T, text string, off, pre, suf int) {
		if off < 0 || off > len(text) || pre < 0 || suf < 0 {
			return
		}
		p, s := windows(text, off, pre, suf)
		if !strings.HasSuffix(text[:off], p) || !strings.HasPrefix(text[off:], s) || len(p) > pre || len(s) > suf {
			t.Fatalf("windows(%q, %d, %d, %d) = %q, %q", text, off, pre, suf, p, s)
		}
		if utf8.ValidString(text[:off]) && utf8.ValidString(text[off:]) && (!utf8.ValidString(p) || !utf8.ValidString(s)) {
			t.Fatalf("a window splits a rune: %q %q", p, s)
		}
	})
}

// FuzzClean: cleaning only ever shortens the model's text, and a one-line
// completion has no line break.
func FuzzClean(f *testing.F) {
	f.Add("return 1\n}\n", "\t", "", "\n}\n")
	f.Add("a, b)\nx", "f(", ")", ")\n")
	f.Fuzz(func(t *testing.T, out, linePrefix, lineRest, suffix string) {
		p := &prompt{linePrefix: linePrefix, lineRest: lineRest, suffix: suffix, multiLine: strings.TrimSpace(lineRest) == ""}
		got := clean(out, p)
		if !strings.HasPrefix(out, got) {
			t.Fatalf("clean(%q) = %q is not a prefix of the model's text", out, got)
		}
		if !p.multiLine && strings.ContainsAny(got, "\r\n") {
			t.Fatalf("one-line completion %q", got)
		}
	})
}

// FuzzDocumentChanges: any change an editor sends is applied or refused,
// never a panic.
func FuzzDocumentChanges(f *testing.F) {
	f.Add("hello\nworld\n", uint32(0), uint32(2), uint32(1), uint32(3), "X")
	f.Fuzz(func(t *testing.T, text string, l1, c1, l2, c2 uint32, ins string) {
		d := &document{}
		d.set(1, text)
		_ = d.apply(2, []contentChange{{Range: rangeOf(l1, c1, l2, c2), Text: ins}})
	})
}
