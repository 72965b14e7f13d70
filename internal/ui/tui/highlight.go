package tui

import (
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/lexers"
	chromastyles "github.com/alecthomas/chroma/v2/styles"
)

// highlight colours code lines with chroma, by the lexer of the file's
// name: each line's tokens in the palette's chroma style, on bg (nil: the
// terminal's). The lines are tokenised together, so a comment or string
// spanning lines reads right. It returns nil when no lexer knows the file.
func (s styles) highlight(path string, lines []string, bgs []lipgloss.Style) []string {
	lexer := lexers.Match(path)
	if lexer == nil || len(lines) == 0 {
		return nil
	}
	it, err := chroma.Coalesce(lexer).Tokenise(nil, strings.Join(lines, "\n")+"\n")
	if err != nil {
		return nil
	}
	name := "github"
	if s.dark {
		name = "monokai"
	}
	cs := chromastyles.Get(name)
	out := make([]string, len(lines))
	row := 0
	var b strings.Builder
	flush := func() {
		if row < len(out) {
			out[row] = b.String()
		}
		b.Reset()
		row++
	}
	for tok := it(); tok != chroma.EOF; tok = it() {
		parts := strings.Split(tok.Value, "\n")
		for i, part := range parts {
			if i > 0 {
				flush()
			}
			if part == "" || row >= len(lines) {
				continue
			}
			st := bgs[row]
			if e := cs.Get(tok.Type); e.Colour.IsSet() {
				st = st.Foreground(lipgloss.Color(e.Colour.String()))
			}
			b.WriteString(st.Render(part))
		}
	}
	if b.Len() > 0 {
		flush()
	}
	return out
}
