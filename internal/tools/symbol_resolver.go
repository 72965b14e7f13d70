package tools

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/olly-agent/olly/internal/lsp"
	"github.com/olly-agent/olly/internal/workspace"
)

// Shared position resolution for the code-intelligence tools (seed 000,
// "Shared Position Resolution"): {path, symbolName?, line?, character?}
// becomes a file and a protocol position.
//
//  1. line and character (both 1-based; character counts characters as a
//     person does) are used as given;
//  2. otherwise symbolName is searched in the file's text as a whole word,
//     preferring the occurrence nearest line when line is given, code over
//     comments and strings, and falling back to a case-insensitive search;
//  3. otherwise line alone points at the line's first non-blank character.
//     (The seed says character 0; on an indented line that is whitespace,
//     where servers find nothing.)

// maxTargetBytes bounds the file a position is resolved in.
const maxTargetBytes = 4 << 20

// target is a resolved position.
type target struct {
	file   workspace.Path
	mapper *lsp.Mapper
	pos    lsp.Position
	// line and col are 1-based, col in characters: for display.
	line, col int
	// symbol is the name given, or the identifier at the position.
	symbol string
}

// where is "main.go:12:5".
func (t *target) where() string { return fmt.Sprintf("%s:%d:%d", t.file.Rel, t.line, t.col) }

// label names what was asked about: "`TotalArea`" or "main.go:12:5".
func (t *target) label() string {
	if t.symbol != "" {
		return "`" + t.symbol + "`"
	}
	return t.where()
}

// resolveFile resolves and reads the path argument.
func resolveFile(env *Env, tool string, args Args) (workspace.Path, []byte, *Result) {
	given, ok := args.Path()
	if !ok || strings.TrimSpace(given) == "" {
		return workspace.Path{}, nil, errResult("%s needs a path: the file to look in, relative to the workspace root.", tool)
	}
	if env.Workspace == nil {
		return workspace.Path{}, nil, noWorkspace(tool)
	}
	wp, err := env.Workspace.Resolve(strings.TrimSpace(given))
	if err != nil {
		return workspace.Path{}, nil, pathError(tool, err)
	}
	switch {
	case wp.IsDir():
		return wp, nil, errResult("%s is a directory; %s needs a source file.", wp.Rel, tool)
	case !wp.Info.Mode().IsRegular():
		return wp, nil, errResult("%s is not a regular file.", wp.Rel)
	case wp.Info.Size() > maxTargetBytes:
		return wp, nil, errResult("%s is %s, too large for %s.", wp.Rel, sizeText(wp.Info.Size()), tool)
	}
	text, err := os.ReadFile(wp.Abs)
	if err != nil {
		return wp, nil, errResult("%s: cannot read %s: %v.", tool, wp.Rel, err)
	}
	return wp, text, nil
}

// resolveTarget resolves the arguments to a position (see the rules above).
func resolveTarget(env *Env, tool string, args Args) (*target, *Result) {
	wp, text, bad := resolveFile(env, tool, args)
	if bad != nil {
		return nil, bad
	}
	line, hasLine, err := args.Int("line", "lineNumber", "line_number")
	if err != nil {
		return nil, errResult("%s: %v.", tool, err)
	}
	char, hasChar, err := args.Int("character", "column", "col", "char")
	if err != nil {
		return nil, errResult("%s: %v.", tool, err)
	}
	name, _ := args.String("symbolName", "symbol", "symbol_name", "name")
	name = strings.TrimSpace(name)
	t := &target{file: wp, mapper: lsp.NewMapper(text)}
	switch {
	case hasLine && hasChar:
		t.line, t.col = line, char
	case name != "":
		l, c, ok := findSymbol(t.mapper, name, line)
		if !ok {
			return nil, errResult("%s: the symbol %q does not occur in %s. Check the spelling, or call get_document_symbols on %s to see what it defines (or find_symbol to search the whole workspace).",
				tool, name, wp.Rel, wp.Rel)
		}
		t.line, t.col = l, c
	case hasLine:
		t.line, t.col = line, firstNonBlank(t.mapper.LineText(line-1))
	default:
		return nil, errResult("%s needs symbolName (the name of a function, type or variable in %s) or line and character (1-based).", tool, wp.Rel)
	}
	pos, err := t.mapper.PositionAt(t.line, t.col)
	if err != nil {
		return nil, errResult("%s: %v in %s. Give a position inside the file, or use symbolName instead.", tool, err, wp.Rel)
	}
	t.pos = pos
	t.symbol = name
	if t.symbol == "" {
		t.symbol = wordAt(t.mapper.LineText(t.line-1), t.col)
	}
	return t, nil
}

// findSymbol finds name as a whole word and returns its 1-based line and
// column. A qualified name ("Server.Start", "pkg::run") that does not occur
// is looked up by its last part.
func findSymbol(m *lsp.Mapper, name string, near int) (line, col int, ok bool) {
	for _, fold := range []bool{false, true} {
		if l, c, ok := nearest(m, name, fold, near); ok {
			return l, c, true
		}
	}
	if i := strings.LastIndexAny(name, ".:#>"); i >= 0 && i+1 < len(name) {
		return findSymbol(m, name[i+1:], near)
	}
	return 0, 0, false
}

// nearest returns the best whole-word occurrence of name: code before
// comments and strings, then the one closest to near (when given), then
// the first.
func nearest(m *lsp.Mapper, name string, fold bool, near int) (line, col int, ok bool) {
	best, bestScore := -1, 0
	for l := 0; l < m.Lines(); l++ {
		text := m.LineText(l)
		for _, off := range wordOffsets(text, name, fold) {
			score := 0
			if inCommentOrString(text, off) {
				score += 1 << 30
			}
			if near > 0 {
				score += abs(l + 1 - near)
			}
			if best < 0 || score < bestScore {
				best, bestScore = l, score
				line, col = l+1, utf8.RuneCount(text[:off])+1
			}
		}
	}
	return line, col, best >= 0
}

// wordOffsets returns the byte offsets where name occurs in text as a
// whole word.
func wordOffsets(text []byte, name string, fold bool) []int {
	hay, needle := text, []byte(name)
	if fold {
		hay, needle = bytes.ToLower(text), bytes.ToLower(needle)
		if len(hay) != len(text) {
			return nil // lower-casing changed byte lengths: offsets would lie
		}
	}
	var out []int
	for from := 0; from <= len(hay)-len(needle) && len(needle) > 0; {
		i := bytes.Index(hay[from:], needle)
		if i < 0 {
			break
		}
		at := from + i
		end := at + len(needle)
		if !wordByteBefore(text, at) && !wordByteAfter(text, end) {
			out = append(out, at)
		}
		from = at + 1
	}
	return out
}

func wordByteBefore(text []byte, at int) bool {
	r, _ := utf8.DecodeLastRune(text[:at])
	return at > 0 && isWordRune(r)
}

func wordByteAfter(text []byte, end int) bool {
	r, _ := utf8.DecodeRune(text[end:])
	return end < len(text) && isWordRune(r)
}

func isWordRune(r rune) bool {
	return r == '_' || r == '$' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

// inCommentOrString guesses whether offset lies in a comment or a string
// literal, for ranking only: a line comment marker or an odd number of
// quotes before it, or a line that starts like a comment.
func inCommentOrString(text []byte, offset int) bool {
	trimmed := bytes.TrimLeft(text, " \t")
	for _, p := range []string{"//", "#", "*", "/*", "--", ";"} {
		if bytes.HasPrefix(trimmed, []byte(p)) {
			return true
		}
	}
	before := text[:offset]
	if bytes.Contains(before, []byte("//")) || bytes.Contains(before, []byte(" #")) {
		return true
	}
	quotes := 0
	for i, c := range before {
		if (c == '"' || c == '`' || c == '\'') && (i == 0 || before[i-1] != '\\') {
			quotes++
		}
	}
	return quotes%2 == 1
}

// firstNonBlank is the 1-based column of the first non-blank character of
// line (1 for a blank line).
func firstNonBlank(line []byte) int {
	col := 1
	for _, r := range string(line) {
		if r != ' ' && r != '\t' {
			return col
		}
		col++
	}
	return 1
}

// wordAt returns the identifier at (or right before) the 1-based column.
func wordAt(line []byte, col int) string {
	runes := []rune(string(line))
	i := col - 1
	if i >= len(runes) || (i >= 0 && !isWordRune(runes[i])) {
		i-- // just past the end of a word
	}
	if i < 0 || i >= len(runes) || !isWordRune(runes[i]) {
		return ""
	}
	start, end := i, i
	for start > 0 && isWordRune(runes[start-1]) {
		start--
	}
	for end < len(runes) && isWordRune(runes[end]) {
		end++
	}
	return string(runes[start:end])
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
