package tui

import (
	"strings"

	"charm.land/glamour/v2"
	"github.com/charmbracelet/x/ansi"
)

// markdown renders assistant text with glamour (chroma highlights code
// blocks), caching by text so a frame re-renders only what changed.
//
// A streaming answer is split at its last paragraph break outside a code
// fence: the stable part above is rendered once and cached, the tail still
// being written is wrapped as plain text. Each frame then costs the tail,
// not the whole answer, which keeps a long answer's frames short
// (docs/performance.md, BenchmarkStreamFrame).
type markdown struct {
	width int
	dark  bool
	r     *glamour.TermRenderer
	cache map[string]string
}

func newMarkdown() *markdown { return &markdown{cache: map[string]string{}} }

// setup makes the renderer for width and background; changing either
// drops the cache.
func (m *markdown) setup(width int, dark bool) {
	if width < 20 {
		width = 20
	}
	if m.r != nil && m.width == width && m.dark == dark {
		return
	}
	m.width, m.dark = width, dark
	m.cache = map[string]string{}
	style := "light"
	if dark {
		style = "dark"
	}
	r, err := glamour.NewTermRenderer(glamour.WithStandardStyle(style), glamour.WithWordWrap(width-4))
	if err != nil {
		m.r = nil
		return
	}
	m.r = r
}

// render renders complete markdown, block by block: each paragraph, list
// or code block (split at blank lines outside code fences) is rendered on
// its own and cached, so a long answer costs one glamour call per new
// block, never the whole answer again — while it streams and when its
// final text arrives. Live and replayed answers split the same way.
func (m *markdown) render(text string) string {
	text = strings.TrimSpace(text)
	if text == "" {
		return ""
	}
	if out, ok := m.cache[text]; ok {
		return out // the whole text, rendered before (a streaming answer's stable part)
	}
	var parts []string
	for _, c := range chunks(text) {
		if out := m.chunk(c); out != "" {
			parts = append(parts, out)
		}
	}
	out := strings.Join(parts, "\n\n")
	m.cache[text] = out
	return out
}

// chunk renders one block of markdown, cached.
func (m *markdown) chunk(text string) string {
	text = strings.TrimSpace(text)
	if text == "" {
		return ""
	}
	if out, ok := m.cache[text]; ok {
		return out
	}
	out := ""
	if m.r != nil {
		if s, err := m.r.Render(text); err == nil {
			out = trimBlank(s)
		}
	}
	if out == "" {
		// Glamour failed (it should not): show the text as it is.
		out = m.plain(text)
	}
	if len(m.cache) > 8192 {
		m.cache = map[string]string{}
	}
	m.cache[text] = out
	return out
}

// streaming renders text that is still being written: its complete
// blocks as markdown, the block being written as plain text.
func (m *markdown) streaming(text string) string {
	stable, tail := splitStable(text)
	var parts []string
	if strings.TrimSpace(stable) != "" {
		parts = append(parts, m.render(stable))
	}
	if strings.TrimSpace(tail) != "" {
		parts = append(parts, m.plain(tail))
	}
	return strings.Join(parts, "\n\n")
}

// chunks splits markdown at blank lines outside code fences.
func chunks(text string) []string {
	var out []string
	for text != "" {
		stable, tail := splitFirst(text)
		if stable == "" {
			out = append(out, tail)
			break
		}
		out = append(out, stable)
		text = tail
	}
	return out
}

// splitFirst returns the text up to its first block break (a blank line
// or the end of a code fence, outside fences), and the rest.
func splitFirst(text string) (string, string) {
	inFence, pos := false, 0
	for pos < len(text) {
		nl := strings.IndexByte(text[pos:], '\n')
		if nl < 0 {
			break
		}
		t := strings.TrimSpace(text[pos : pos+nl])
		end := pos + nl + 1
		switch {
		case strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~"):
			inFence = !inFence
			if !inFence {
				return text[:end], text[end:]
			}
		case !inFence && t == "" && strings.TrimSpace(text[:pos]) != "":
			return text[:end], text[end:]
		}
		pos = end
	}
	return "", text
}

// plain wraps text to the width, indented like glamour's paragraphs.
func (m *markdown) plain(text string) string {
	w := m.width - 4
	if w < 10 {
		w = 10
	}
	lines := strings.Split(ansi.Wrap(sanitize(strings.TrimRight(text, "\n")), w, " "), "\n")
	for i, l := range lines {
		lines[i] = "  " + l
	}
	return strings.Join(lines, "\n")
}

// splitStable returns the text up to its last paragraph break that is not
// inside a code fence, and the rest.
func splitStable(text string) (stable, tail string) {
	cut, inFence := -1, false
	pos := 0
	for pos < len(text) {
		nl := strings.IndexByte(text[pos:], '\n')
		if nl < 0 {
			break
		}
		line := text[pos : pos+nl]
		if t := strings.TrimSpace(line); strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			inFence = !inFence
			if !inFence {
				cut = pos + nl + 1 // a closed fence is a complete block
			}
		} else if !inFence && t == "" {
			cut = pos + nl + 1
		}
		pos += nl + 1
	}
	if cut < 0 {
		return "", text
	}
	return text[:cut], text[cut:]
}

// trimBlank drops glamour's leading and trailing blank lines.
func trimBlank(s string) string {
	lines := strings.Split(s, "\n")
	for len(lines) > 0 && strings.TrimSpace(ansi.Strip(lines[0])) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && strings.TrimSpace(ansi.Strip(lines[len(lines)-1])) == "" {
		lines = lines[:len(lines)-1]
	}
	return strings.Join(lines, "\n")
}

// sanitize drops control characters (escape sequences from the model or
// from command output must not drive the terminal), keeping newlines and
// turning tabs into spaces.
func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\n':
			return r
		case r == '\t':
			return ' '
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			return -1
		}
		return r
	}, s)
}
