package tools

import (
	"fmt"
	"os"
	"strings"

	"github.com/olly-agent/olly/internal/lsp"
	"github.com/olly-agent/olly/internal/workspace"
)

// The seed's readContextAroundLocation and formatLocation: a location is
// shown as "path:line:col" with the lines around it, the target line
// marked with →, in the layout search_workspace uses.

// maxContextLineBytes cuts long lines in context blocks.
const maxContextLineBytes = 200

// sourceFiles reads and indexes the files locations point into, once per
// tool call. Files outside the workspace (the standard library, a module
// cache) are not read: olly reads only inside the workspace and the
// directories the person allowed, so those locations are shown without
// context.
type sourceFiles struct {
	ws    *workspace.Workspace
	files map[string]*lsp.Mapper // by absolute path; nil: unreadable
}

func newSourceFiles(ws *workspace.Workspace) *sourceFiles {
	return &sourceFiles{ws: ws, files: map[string]*lsp.Mapper{}}
}

// add registers a file already read (the target file).
func (s *sourceFiles) add(abs string, m *lsp.Mapper) { s.files[abs] = m }

// mapper returns the indexed text of abs, or nil when it is outside the
// workspace or cannot be read.
func (s *sourceFiles) mapper(abs string) *lsp.Mapper {
	if m, ok := s.files[abs]; ok {
		return m
	}
	var m *lsp.Mapper
	if s.ws != nil && s.ws.Contains(abs) {
		if info, err := os.Stat(abs); err == nil && info.Size() <= maxTargetBytes {
			if text, err := os.ReadFile(abs); err == nil {
				m = lsp.NewMapper(text)
			}
		}
	}
	s.files[abs] = m
	return m
}

// place is a location resolved for display.
type place struct {
	abs  string
	rel  string
	line int // 1-based
	col  int // 1-based, in characters
	// outside is set when the file lies outside the workspace.
	outside bool
	mapper  *lsp.Mapper
}

func (p place) String() string { return fmt.Sprintf("%s:%d:%d", p.rel, p.line, p.col) }

// place resolves a protocol location for display.
func (s *sourceFiles) place(uri lsp.DocumentURI, pos lsp.Position) place {
	abs, err := uri.Path()
	if err != nil {
		return place{rel: string(uri), line: int(pos.Line) + 1, col: int(pos.Character) + 1, outside: true}
	}
	p := place{abs: abs, rel: abs, line: int(pos.Line) + 1, col: int(pos.Character) + 1}
	if s.ws != nil {
		p.rel = s.ws.Rel(abs)
		p.outside = !s.ws.Contains(abs)
	}
	if m := s.mapper(abs); m != nil {
		p.mapper = m
		p.line, p.col = m.LineCol(pos)
	}
	return p
}

// lineText returns the 1-based line of p's file, trimmed and cut, or "".
func (p place) lineText() string {
	if p.mapper == nil {
		return ""
	}
	return cutLine(strings.TrimSpace(string(p.mapper.LineText(p.line - 1))))
}

// readContextAroundLocation renders lines line-n … line+n (1-based) of m,
// marking line with →.
func readContextAroundLocation(m *lsp.Mapper, line, n int) string {
	if m == nil {
		return ""
	}
	var b strings.Builder
	first, last := max(1, line-n), min(m.Lines(), line+n)
	for l := first; l <= last; l++ {
		mark := "  "
		if l == line {
			mark = "→ "
		}
		fmt.Fprintf(&b, "%s%d: %s\n", mark, l, cutLine(strings.TrimRight(string(m.LineText(l-1)), " \t")))
	}
	return b.String()
}

// formatLocation renders a location as its place and the lines around it.
func (s *sourceFiles) formatLocation(loc lsp.Location, n int) (string, place) {
	p := s.place(loc.URI, loc.Range.Start)
	var b strings.Builder
	b.WriteString(p.String())
	if p.outside {
		b.WriteString(" (outside the workspace)")
	}
	b.WriteByte('\n')
	b.WriteString(readContextAroundLocation(p.mapper, p.line, n))
	return b.String(), p
}

func cutLine(s string) string {
	if len(s) <= maxContextLineBytes {
		return s
	}
	cut := maxContextLineBytes
	for cut > 0 && !isRuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + " …"
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }
