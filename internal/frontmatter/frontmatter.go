// Package frontmatter splits a Markdown file into its YAML front matter
// and its body, as skills (SKILL.md) and custom slash commands
// (.olly/commands/*.md) are written:
//
//	---
//	name: review-pr
//	description: Review a pull request
//	---
//	The body…
//
// The files are workspace content, so untrusted: the front matter is
// bounded, decoded into string fields only, and a malformed one is an
// error naming the problem, never a panic.
package frontmatter

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// MaxFrontMatter bounds the front matter: more is an error.
const MaxFrontMatter = 16 << 10

// Parse splits data into its front matter fields and its body. A file
// without front matter (not starting with a "---" line) has no fields and
// is all body. Field values that are not strings (numbers, booleans) are
// given in their YAML text; lists and maps are refused. Keys are kept as
// written.
func Parse(data []byte) (fields map[string]string, body string, err error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")) // a byte-order mark
	rest, ok := cutLine(data, "---")
	if !ok {
		return map[string]string{}, string(data), nil
	}
	end := -1
	for off := 0; off < len(rest); {
		line, next := rest[off:], len(rest)
		if k := bytes.IndexByte(line, '\n'); k >= 0 {
			line, next = line[:k], off+k+1
		}
		if t := strings.TrimRight(string(line), " \t\r"); t == "---" || t == "..." {
			end = off
			body = string(rest[next:])
			break
		}
		off = next
	}
	if end < 0 {
		return nil, "", errors.New("front matter is not closed: add a line with --- after it")
	}
	if end > MaxFrontMatter {
		return nil, "", fmt.Errorf("front matter is %d bytes; at most %d", end, MaxFrontMatter)
	}
	fields, err = decode(rest[:end])
	if err != nil {
		return nil, "", err
	}
	return fields, body, nil
}

// cutLine reports whether data starts with a line equal to want (trailing
// spaces and a carriage return allowed), and returns what follows it.
func cutLine(data []byte, want string) ([]byte, bool) {
	k := bytes.IndexByte(data, '\n')
	if k < 0 {
		return nil, false
	}
	if strings.TrimRight(string(data[:k]), " \t\r") != want {
		return nil, false
	}
	return data[k+1:], true
}

// decode reads the YAML mapping of the front matter.
func decode(src []byte) (map[string]string, error) {
	fields := map[string]string{}
	if len(bytes.TrimSpace(src)) == 0 {
		return fields, nil
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return nil, fmt.Errorf("front matter is not valid YAML: %w", err)
	}
	if len(doc.Content) == 0 {
		return fields, nil
	}
	m := doc.Content[0]
	if m.Kind != yaml.MappingNode {
		return nil, errors.New("front matter must be a mapping of fields (name: value)")
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			return nil, errors.New("front matter keys must be plain words")
		}
		switch v.Kind {
		case yaml.ScalarNode:
			fields[k.Value] = v.Value
		case yaml.AliasNode:
			return nil, fmt.Errorf("front matter field %q: aliases are not allowed", k.Value)
		default:
			return nil, fmt.Errorf("front matter field %q must be a single value, not a list or a mapping", k.Value)
		}
	}
	return fields, nil
}
