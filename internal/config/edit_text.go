package config

import (
	"bytes"
	"slices"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// The functions here edit settings text directly, for the common edits
// (replace a one-line value, add a one-line key, remove a one-line key), so
// the rest of the file stays byte for byte as the person wrote it. Each
// returns false when the edit is not of that simple shape; the caller then
// edits the YAML tree instead. The caller also parses every result back and
// falls back to the tree when the text edit did not do exactly what it
// meant, so these functions may be optimistic.

// spliceSet writes value for key by editing text.
func spliceSet(data []byte, root *yaml.Node, occ []occurrence, key string, value *yaml.Node) ([]byte, bool) {
	text := nodeText(value)
	if strings.ContainsAny(text, "\n\r") || (value.Kind != yaml.ScalarNode && value.Style&yaml.FlowStyle == 0) {
		return nil, false
	}
	switch len(occ) {
	case 0:
		return insertText(data, root, key, text)
	case 1:
		old := occ[0].parent.Content[occ[0].i+1]
		if old.Kind != yaml.ScalarNode {
			return nil, false
		}
		start, ok := offsetOf(data, old.Line, old.Column)
		if !ok {
			return nil, false
		}
		end, ok := scalarEnd(data, start, old)
		if !ok {
			return nil, false
		}
		return slices.Concat(data[:start], []byte(text), data[end:]), true
	}
	return nil, false
}

// offsetOf turns the parser's 1-based line and column (in characters) into
// a byte offset.
func offsetOf(data []byte, line, column int) (int, bool) {
	off := 0
	for l := 1; l < line; l++ {
		i := bytes.IndexByte(data[off:], '\n')
		if i < 0 {
			return 0, false
		}
		off += i + 1
	}
	for c := 1; c < column; c++ {
		if off >= len(data) || data[off] == '\n' {
			return 0, false
		}
		_, size := utf8.DecodeRune(data[off:])
		off += size
	}
	return off, true
}

// scalarEnd finds where a one-line scalar that starts at start ends.
func scalarEnd(data []byte, start int, n *yaml.Node) (int, bool) {
	rest := data[start:]
	switch {
	case n.Style == 0 && n.Value != "" && !strings.ContainsAny(n.Value, "\n\r"):
		if !bytes.HasPrefix(rest, []byte(n.Value)) {
			return 0, false
		}
		end := start + len(n.Value)
		if end < len(data) && !strings.ContainsRune(" \t\r\n", rune(data[end])) {
			return 0, false
		}
		return end, true
	case n.Style == yaml.SingleQuotedStyle && len(rest) > 0 && rest[0] == '\'':
		for i := 1; i < len(rest); i++ {
			switch rest[i] {
			case '\n':
				return 0, false
			case '\'':
				if i+1 < len(rest) && rest[i+1] == '\'' {
					i++
					continue
				}
				return start + i + 1, true
			}
		}
	case n.Style == yaml.DoubleQuotedStyle && len(rest) > 0 && rest[0] == '"':
		for i := 1; i < len(rest); i++ {
			switch rest[i] {
			case '\n':
				return 0, false
			case '\\':
				i++
			case '"':
				return start + i + 1, true
			}
		}
	}
	return 0, false
}

// insertText adds a one-line key: after the last key of its group when the
// group is a block mapping whose last value is on one line, otherwise at the
// end of the file.
func insertText(data []byte, root *yaml.Node, key, text string) ([]byte, bool) {
	if root.Style&yaml.FlowStyle != 0 {
		return nil, false
	}
	nl := lineEnding(data)
	unit := strings.Repeat(" ", detectIndent(root))
	m, rest := deepestGroup(root, key)
	if m == root {
		if len(rest) > 1 && usesDottedKeys(root, rest[0]) {
			rest = []string{strings.Join(rest, ".")}
		}
		out := slices.Clone(data)
		if len(out) > 0 && !bytes.HasSuffix(out, []byte("\n")) {
			out = append(out, nl...)
		}
		return append(out, nestedLines(rest, "", unit, text, nl)...), true
	}
	if m.Style&yaml.FlowStyle != 0 || len(m.Content) < 2 {
		return nil, false
	}
	lastKey, lastValue := m.Content[len(m.Content)-2], m.Content[len(m.Content)-1]
	if lastValue.Kind != yaml.ScalarNode || lastValue.Line != lastKey.Line {
		return nil, false
	}
	at, ok := offsetOf(data, lastValue.Line+1, 1)
	if !ok { // the group ends on the last line, which has no newline
		data = append(slices.Clone(data), nl...)
		at = len(data)
	}
	indent := strings.Repeat(" ", m.Content[0].Column-1)
	return slices.Concat(data[:at], nestedLines(rest, indent, unit, text, nl), data[at:]), true
}

// nestedLines writes "a:\n  b: text\n" for the key parts [a b].
func nestedLines(parts []string, indent, unit, text, nl string) []byte {
	var b strings.Builder
	for i, p := range parts {
		b.WriteString(indent)
		b.WriteString(p)
		if i == len(parts)-1 {
			b.WriteString(": ")
			b.WriteString(text)
		} else {
			b.WriteString(":")
			indent += unit
		}
		b.WriteString(nl)
	}
	return []byte(b.String())
}

func lineEnding(data []byte) string {
	if bytes.Contains(data, []byte("\r\n")) {
		return "\r\n"
	}
	return "\n"
}

// spliceUnset deletes the lines of one-line keys, as long as each leaves
// its group with other keys (an emptied group is the tree edit's job).
func spliceUnset(data []byte, root *yaml.Node, occ []occurrence) ([]byte, bool) {
	lines := make([]int, 0, len(occ))
	left := map[*yaml.Node]int{}
	for _, o := range occ {
		if _, seen := left[o.parent]; !seen {
			left[o.parent] = len(o.parent.Content) / 2
		}
		left[o.parent]--
		k, v := o.parent.Content[o.i], o.parent.Content[o.i+1]
		if o.parent.Style&yaml.FlowStyle != 0 || v.Kind != yaml.ScalarNode || k.Line != v.Line || strings.ContainsAny(v.Value, "\n\r") {
			return nil, false
		}
		lines = append(lines, k.Line)
	}
	for p, n := range left {
		if n == 0 && p != root {
			return nil, false
		}
	}
	slices.Sort(lines)
	out := slices.Clone(data)
	for i := len(lines) - 1; i >= 0; i-- {
		start, ok := offsetOf(out, lines[i], 1)
		if !ok {
			return nil, false
		}
		end := len(out)
		if j := bytes.IndexByte(out[start:], '\n'); j >= 0 {
			end = start + j + 1
		}
		out = slices.Delete(out, start, end)
	}
	return out, true
}
