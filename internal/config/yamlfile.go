package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// assignment is one key set in a file.
type assignment struct {
	key  string
	node *yaml.Node // the value, aliases resolved
	line int        // the key's line
}

// maxFileProblems stops a walk over a file that is clearly not an olly
// settings file; the first problems are what the person needs.
const maxFileProblems = 100

// parseDocument parses one YAML document. It returns nil for a file with no
// content (empty, or comments only). A second document is an error: olly
// would otherwise ignore it without a word.
func parseDocument(data []byte, path string) (*yaml.Node, *Error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := safeDecode(dec, &doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil
		}
		return nil, syntaxError(err, data, path)
	}
	for {
		var extra yaml.Node
		err := safeDecode(dec, &extra)
		switch {
		case errors.Is(err, io.EOF):
			return &doc, nil
		case err != nil:
			return nil, syntaxError(err, data, path)
		case len(extra.Content) == 0 || (extra.Content[0].Kind == yaml.ScalarNode && extra.Content[0].ShortTag() == "!!null"):
			continue // a trailing "---" with nothing after it
		}
		return nil, &Error{Kind: ErrSyntax, Source: Source{Kind: FromFile, Name: path, Line: extra.Line},
			Msg: "a second YAML document (after ---): olly reads one document per file; merge them into one"}
	}
}

// safeDecode turns a panic inside the YAML parser into an error: a settings
// file must never crash olly.
func safeDecode(dec *yaml.Decoder, n *yaml.Node) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("yaml: the parser failed: %v", r)
		}
	}()
	return dec.Decode(n)
}

// safeUnmarshal is yaml.Unmarshal with the same protection.
func safeUnmarshal(data []byte, n *yaml.Node) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("yaml: the parser failed: %v", r)
		}
	}()
	return yaml.Unmarshal(data, n)
}

// syntaxError places a parser error at its line. The parser puts
// "line N: " in its message except for problems on the first line and for
// bytes YAML does not allow, which are located here.
func syntaxError(err error, data []byte, path string) *Error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 0
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if num, after, ok := strings.Cut(rest, ": "); ok {
			if n, convErr := strconv.Atoi(num); convErr == nil {
				line, msg = n, after
			}
		}
	}
	badBytes := strings.Contains(msg, "control characters") || strings.Contains(msg, "UTF-8") || strings.Contains(msg, "Unicode")
	switch {
	case badBytes:
		line = badByteLine(data)
	case isParserError(msg):
		// The parser's line is 0-based and often where the enclosing block
		// starts, not where it went wrong.
		line = firstFailingLine(data, msg, line)
	case line == 0:
		line = 1 // the parser leaves out "line 1"
	}
	hint := "fix this line: settings are `key: value` pairs, nested with spaces (not tabs)"
	if badBytes {
		hint = "the file must be UTF-8 text; remove the stray bytes on this line"
	}
	return &Error{Kind: ErrSyntax, Source: Source{Kind: FromFile, Name: path, Line: line},
		Msg: "malformed YAML: " + msg + " (" + hint + ")"}
}

// isParserError tells the parser's errors (as opposed to the scanner's) by
// their messages, which are fixed strings in the YAML library.
func isParserError(msg string) bool {
	for _, p := range []string{
		"did not find expected key", "did not find expected node content", "did not find expected '-' indicator",
		"did not find expected ',' or ']'", "did not find expected ',' or '}'", "did not find expected <document start>",
		"found undefined tag handle", "found incompatible YAML document", "found duplicate %",
	} {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	return false
}

// firstFailingLine finds where the file went wrong: the first line from
// which on every prefix of the file fails with the same problem as the whole
// file. The parser's own line (from, 0-based) is where the enclosing block
// starts, so the search starts there; it is a binary search because a
// prefix that ends before the problem parses (or fails differently).
func firstFailingLine(data []byte, msg string, from int) int {
	starts := []int{0}
	for i, c := range data {
		if c == '\n' && i+1 < len(data) {
			starts = append(starts, i+1)
		}
	}
	prefixFails := func(n int) bool { // the first n lines
		end := len(data)
		if n < len(starts) {
			end = starts[n]
		}
		err := parseAll(data[:end])
		return err != nil && strings.HasSuffix(err.Error(), msg)
	}
	hi := len(starts)
	lo := min(max(from, 0)+1, hi)
	if !prefixFails(hi) {
		return lo
	}
	for lo < hi {
		mid := (lo + hi) / 2
		if prefixFails(mid) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}

// parseAll parses every document in data.
func parseAll(data []byte) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var n yaml.Node
		if err := safeDecode(dec, &n); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// badByteLine finds the line of the first byte YAML rejects (invalid UTF-8
// or a control character); 1 when there is none, since then the parser's
// problem is on the first line.
func badByteLine(data []byte) int {
	line := 1
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size <= 1 {
			return line
		}
		if r == '\n' {
			line++
		} else if !yamlPrintable(r) {
			return line
		}
		i += size
	}
	return 1
}

// yamlPrintable is YAML's c-printable set (tab, line breaks and printable
// Unicode).
func yamlPrintable(r rune) bool {
	switch {
	case r == '\t' || r == '\n' || r == '\r' || r == 0x85:
		return true
	case r < 0x20 || (r >= 0x7f && r < 0xa0):
		return false
	case r >= 0xd800 && r <= 0xdfff, r == 0xfffe, r == 0xffff:
		return false
	}
	return true
}

// parseFile reads the settings written in one file.
func (r *registry) parseFile(data []byte, path string) ([]assignment, []*Error) {
	doc, perr := parseDocument(data, path)
	if perr != nil {
		return nil, []*Error{perr}
	}
	if doc == nil || len(doc.Content) == 0 {
		return nil, nil
	}
	root := resolveAlias(doc.Content[0])
	switch {
	case root.Kind == yaml.ScalarNode && root.ShortTag() == "!!null":
		return nil, nil
	case root.Kind != yaml.MappingNode:
		return nil, []*Error{{Kind: ErrType, Source: Source{Kind: FromFile, Name: path, Line: root.Line},
			Msg: "expected a mapping of settings (key: value lines) at the top of the file, got " + describe(root)}}
	}
	var out []assignment
	var errs []*Error
	r.walkMapping(root, "", path, &out, &errs, 0)
	return out, errs
}

// walkMapping collects the keys of a mapping, nested (agent: {maxIterations:
// 30}) or dotted (agent.maxIterations: 30) alike.
func (r *registry) walkMapping(m *yaml.Node, prefix, path string, out *[]assignment, errs *[]*Error, depth int) {
	if depth > maxDepth {
		// Only an alias can nest this deep (a mapping that contains itself).
		*errs = append(*errs, &Error{Kind: ErrType, Source: Source{Kind: FromFile, Name: path, Line: m.Line},
			Msg: "settings nested too deeply (an alias that contains itself?): olly's keys are at most a few levels deep"})
		return
	}
	for i := 0; i+1 < len(m.Content) && len(*errs) < maxFileProblems; i += 2 {
		k, v := m.Content[i], resolveAlias(m.Content[i+1])
		src := Source{Kind: FromFile, Name: path, Line: k.Line}
		if k.Kind != yaml.ScalarNode || k.ShortTag() == "!!merge" {
			msg := "a key must be a plain name such as agent.maxIterations, got " + describe(k)
			if k.ShortTag() == "!!merge" {
				msg = "YAML merge keys (<<) are not supported: write the settings out"
			}
			*errs = append(*errs, &Error{Kind: ErrType, Source: src, Msg: msg})
			continue
		}
		key := joinKey(prefix, k.Value)
		switch {
		case r.byKey[key] != nil:
			*out = append(*out, assignment{key: key, node: v, line: k.Line})
		case v.Kind == yaml.MappingNode:
			// A group, a renamed group or a mistyped one: its leaves say which.
			r.walkMapping(v, key, path, out, errs, depth+1)
		case r.groups[key] && v.Kind == yaml.ScalarNode && v.ShortTag() == "!!null":
			// An empty group ("agent:" with every line commented out).
		case r.groups[key]:
			*errs = append(*errs, &Error{Kind: ErrType, Source: src, Key: key,
				Msg: fmt.Sprintf("%s is a group of settings: expected a mapping (%s:, then indented keys, or dotted keys such as %s), got %s",
					key, key, r.firstKeyIn(key), describe(v))})
		default:
			*errs = append(*errs, r.unknownKey(src, key))
		}
	}
}

// firstKeyIn names a key of a group, for examples in messages.
func (r *registry) firstKeyIn(group string) string {
	for _, e := range r.entries {
		if strings.HasPrefix(e.key, group+".") {
			return e.key
		}
	}
	return group + ".KEY"
}
