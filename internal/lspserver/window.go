package lspserver

import (
	"path"
	"strings"
	"unicode/utf8"

	"github.com/olly-agent/olly/internal/lsp"
)

// prompt is what one completion asks the model for.
type prompt struct {
	// prefix and suffix are the windows around the cursor, with the
	// other files' context at the head of prefix.
	prefix, suffix string
	// linePrefix and lineRest are the cursor's line before and after it.
	linePrefix, lineRest string
	// multiLine is true when the cursor is at the end of its line
	// (nothing but spaces after it): only then may a completion run over
	// several lines.
	multiLine bool
}

// windows cuts the prefix and suffix windows around offset: at most
// prefixChars bytes before and suffixChars after, cut back to whole lines
// (a half line reads as broken code to the model) and whole runes.
func windows(text string, offset, prefixChars, suffixChars int) (prefix, suffix string) {
	start := max(0, offset-prefixChars)
	if start > 0 {
		if i := strings.IndexByte(text[start:offset], '\n'); i >= 0 {
			start += i + 1
		} else {
			for start < offset && !utf8.RuneStart(text[start]) {
				start++
			}
		}
	}
	end := min(len(text), offset+suffixChars)
	if end < len(text) {
		if i := strings.LastIndexByte(text[offset:end], '\n'); i >= 0 {
			end = offset + i + 1
		} else {
			for end > offset && !utf8.RuneStart(text[end]) {
				end--
			}
		}
	}
	return text[start:offset], text[offset:end]
}

// lineAround returns the cursor's line before and after the cursor.
func lineAround(text string, offset int) (before, after string) {
	ls := strings.LastIndexByte(text[:offset], '\n') + 1
	le := strings.IndexAny(text[offset:], "\r\n")
	if le < 0 {
		le = len(text) - offset
	}
	return text[ls:offset], text[offset : offset+le]
}

// buildPrompt cuts the windows and adds the other open files' context,
// within the settings' budgets.
func buildPrompt(snap *snapshot, near []*document, set *Settings) prompt {
	var p prompt
	p.prefix, p.suffix = windows(snap.text, snap.offset, set.PrefixChars, set.SuffixChars)
	p.linePrefix, p.lineRest = lineAround(snap.text, snap.offset)
	p.multiLine = strings.TrimSpace(p.lineRest) == ""
	if ctx := nearbyContext(near, snap.lang, set.ContextChars); ctx != "" {
		p.prefix = ctx + p.prefix
	}
	return p
}

// nearbyContext renders excerpts of other open files as comments in the
// current file's language, most recently used file first, each centred on
// where the person last worked in it, until budget bytes are used. Each
// file gets at most half the budget so one large file does not crowd out
// the rest.
func nearbyContext(docs []*document, lang string, budget int) string {
	if budget <= 0 || len(docs) == 0 {
		return ""
	}
	mark := commentMarker(lang)
	var b strings.Builder
	left := budget
	for _, d := range docs {
		header := mark + " Path: " + displayPath(d.uri) + "\n"
		room := min(left, budget/2) - len(header)
		if room < 80 { // too little to be worth a file's name
			continue
		}
		excerpt := excerptAround(d.text, d.near, room)
		if strings.TrimSpace(excerpt) == "" {
			continue
		}
		var part strings.Builder
		part.WriteString(header)
		for line := range strings.SplitSeq(strings.TrimRight(excerpt, "\n"), "\n") {
			part.WriteString(mark + " " + line + "\n")
		}
		if part.Len() > left {
			continue
		}
		b.WriteString(part.String())
		left -= part.Len()
	}
	if b.Len() == 0 {
		return ""
	}
	return b.String() + "\n"
}

// excerptAround returns about size bytes of whole lines around offset.
// Comment markers are added per line later, so it aims a little short.
func excerptAround(text string, offset, size int) string {
	size = size * 4 / 5
	offset = min(max(offset, 0), len(text))
	start := max(0, offset-size/2)
	end := min(len(text), start+size)
	start = max(0, end-size)
	if start > 0 {
		if i := strings.IndexByte(text[start:end], '\n'); i >= 0 {
			start += i + 1
		}
	}
	if end < len(text) {
		if i := strings.LastIndexByte(text[start:end], '\n'); i >= 0 {
			end = start + i + 1
		}
	}
	for start < end && !utf8.RuneStart(text[start]) {
		start++
	}
	for end > start && end < len(text) && !utf8.RuneStart(text[end]) {
		end--
	}
	return text[start:end]
}

// displayPath is a document's file name with its parent directory, enough
// for the model to tell files apart without leaking the whole tree.
func displayPath(uri lsp.DocumentURI) string {
	p, err := uri.Path()
	if err != nil {
		p = string(uri)
	}
	dir, file := path.Split(strings.ReplaceAll(p, "\\", "/"))
	return path.Join(path.Base(dir), file)
}

// commentMarker is the line-comment marker of an LSP language id.
func commentMarker(lang string) string {
	switch lang {
	case "python", "shellscript", "ruby", "perl", "r", "yaml", "toml", "dockerfile", "makefile",
		"elixir", "julia", "powershell", "coffeescript", "nix", "cmake", "terraform", "graphql":
		return "#"
	case "lua", "sql", "haskell", "elm", "ada", "vhdl":
		return "--"
	case "clojure", "lisp", "scheme", "racket", "ini":
		return ";"
	case "erlang", "latex", "tex", "matlab":
		return "%"
	case "vim":
		return "\""
	}
	return "//"
}

// positionOf converts the request's position into a byte offset.
func positionOf(d *document, pos lsp.Position) (int, error) {
	return d.mapper.Offset(pos)
}
