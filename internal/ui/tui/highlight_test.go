package tui

import (
	"strings"
	"testing"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

func TestDiffIsSyntaxHighlighted(t *testing.T) {
	st := newStyles(true)
	diff := "@@ -1,2 +1,2 @@\n func main() {\n-\tprintln(\"hi\")\n+\tprintln(\"hello\") // greet\n }\n"
	got := diffLines(st, "main.go", diff, 0)
	if len(got) != 5 {
		t.Fatalf("got %d lines, want 5: %q", len(got), got)
	}
	if plain := ansi.Strip(got[3]); !strings.HasPrefix(plain, "+") || !strings.HasSuffix(plain, "println(\"hello\") // greet") {
		t.Errorf("added line reads %q", plain)
	}
	// The keyword, the string and the comment are coloured differently.
	kw, str := styleOf(got[1], "func"), styleOf(got[3], "\"hello\"")
	if kw == "" || str == "" || kw == str {
		t.Errorf("keyword style %q, string style %q: want two different colours", kw, str)
	}
	if !strings.Contains(got[3], "\x1b[") || ansi.Strip(got[2])[0] != '-' {
		t.Errorf("removed/added lines lack their marker or colour: %q", got[2:4])
	}
	// A file no lexer knows still gets +/− colours.
	if hl := st.highlight("notes.unknownext", []string{"x"}, []lipgloss.Style{lipgloss.NewStyle()}); hl != nil {
		t.Errorf("an unknown file type was highlighted: %q", hl)
	}
	plain := diffLines(st, "notes.unknownext", "+added\n-removed\n", 0)
	if plain[0] != st.add.Render("+added") || plain[1] != st.del.Render("-removed") {
		t.Errorf("plain diff colours: %q", plain)
	}
}

// styleOf is the escape sequence just before word in a styled line.
func styleOf(line, word string) string {
	i := strings.Index(line, word)
	if i < 0 {
		return ""
	}
	j := strings.LastIndex(line[:i], "\x1b[")
	if j < 0 {
		return ""
	}
	return line[j:i]
}
