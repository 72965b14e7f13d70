package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/olly-agent/olly/internal/atomicfile"

	"go.yaml.in/yaml/v3"
)

// errUnsafeEdit is returned, with the file left as it was, when an edit
// could not be made without changing other settings (re-writing YAML that
// uses anchors on keys and the like). Every edit is checked by parsing the
// result back before it is written.
var errUnsafeEdit = errors.New("cannot edit the file without changing other settings (it uses YAML features olly cannot re-write, such as anchors or unusual keys); edit it by hand")

// newFileHeader starts a settings file olly creates.
const newFileHeader = "# olly settings. `olly config list` shows every key, its value and where it comes from.\n"

// SetInFile checks text as a value of key exactly as loading would (the
// text form of a variable or flag: "45s", "a,b", "{'**/*.go': auto}") and
// writes it into the settings file at path, keeping the file's comments,
// order and other keys. The file and its directory are created when
// missing; a file that holds a secret (apiKey) is made readable by its owner
// only.
func SetInFile(path, key, text string) error {
	r := keys()
	e := r.byKey[key]
	if e == nil {
		return r.unknownKey(Source{}, key)
	}
	v, p := decodeText(e, text)
	if p != nil {
		return &Error{Kind: p.kind, Key: key, Msg: p.msg}
	}
	return editFile(path, func(data []byte) ([]byte, error) {
		return setInData(data, key, e.kind.toNode(v))
	})
}

// UnsetInFile removes key from the settings file at path and reports
// whether it was there. Unknown and renamed keys may be removed too — that is
// how a person fixes the errors loading reports for them.
func UnsetInFile(path, key string) (bool, error) {
	removed := false
	err := editFile(path, func(data []byte) ([]byte, error) {
		out, ok, err := unsetInData(data, key)
		removed = ok
		return out, err
	})
	if err == nil && !removed {
		if cerr := CheckKey(key); cerr != nil {
			return false, cerr
		}
	}
	return removed, err
}

// editFile reads path (through a symbolic link, so a dotfiles manager's
// link stays a link), applies edit and writes the result atomically.
func editFile(path string, edit func([]byte) ([]byte, error)) error {
	target := path
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		if target, err = filepath.EvalSymlinks(path); err != nil {
			return &Error{Kind: ErrIO, Source: Source{Kind: FromFile, Name: path}, Msg: fmt.Sprintf("cannot follow the link: %v", err)}
		}
	}
	data, err := os.ReadFile(target)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return &Error{Kind: ErrIO, Source: Source{Kind: FromFile, Name: path}, Msg: fmt.Sprintf("cannot read: %v", err)}
	}
	out, err := edit(data)
	if err != nil {
		var ce *Error
		if !errors.As(err, &ce) {
			return fmt.Errorf("%s: %w", path, err)
		}
		if ce.Source.Kind == FromFile && ce.Source.Name == "" {
			ce.Source.Name = path
		}
		return err
	}
	if bytes.Equal(out, data) {
		return nil // nothing changed: do not create or touch the file
	}
	perm := fs.FileMode(0o644)
	if fi, err := os.Stat(target); err == nil {
		perm = fi.Mode().Perm()
	}
	if holdsSecret(out) {
		perm &^= 0o077
	}
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return &Error{Kind: ErrIO, Source: Source{Kind: FromFile, Name: path}, Msg: fmt.Sprintf("cannot create its directory: %v", err)}
	}
	if err := atomicfile.Write(target, out, perm); err != nil {
		return &Error{Kind: ErrIO, Source: Source{Kind: FromFile, Name: path}, Msg: fmt.Sprintf("cannot write: %v", err)}
	}
	return nil
}

// holdsSecret reports whether settings text sets a secret key to a
// non-empty value.
func holdsSecret(data []byte) bool {
	doc, perr := parseDocument(data, "")
	if perr != nil || doc == nil || len(doc.Content) == 0 {
		return false
	}
	flat, err := flatten(resolveAlias(doc.Content[0]))
	if err != nil {
		return true // cannot tell: be careful
	}
	for _, e := range keys().entries {
		if v, ok := flat[e.key]; ok && e.secret && v != `!!str:""` && v != "!!null" {
			return true
		}
	}
	return false
}

// editableRoot parses settings text for editing. It returns nil for a file
// without content (empty or comments only).
func editableRoot(data []byte) (*yaml.Node, *yaml.Node, error) {
	doc, perr := parseDocument(data, "")
	if perr != nil {
		perr.Msg += "; fix the file by hand, then run the command again"
		return nil, nil, perr
	}
	if doc == nil || len(doc.Content) == 0 {
		return nil, nil, nil
	}
	root := doc.Content[0]
	switch {
	case root.Kind == yaml.ScalarNode && root.ShortTag() == "!!null":
		root = &yaml.Node{Kind: yaml.MappingNode, HeadComment: root.HeadComment, LineComment: root.LineComment, FootComment: root.FootComment}
		doc.Content[0] = root
	case root.Kind != yaml.MappingNode:
		return nil, nil, &Error{Kind: ErrType, Source: Source{Kind: FromFile, Line: root.Line},
			Msg: "the top of the file is " + describe(root) + ", not a mapping of settings; fix the file by hand"}
	}
	return doc, root, nil
}

// setInData writes value as key into settings text: in place when the key
// is there, otherwise into its group. The text is edited directly where that
// is safe, which keeps blank lines and spacing too; otherwise the YAML tree
// is edited and re-encoded (comments and order kept, blank lines not). Both
// results are checked by parsing them back: every other key must be
// unchanged.
func setInData(data []byte, key string, value *yaml.Node) ([]byte, error) {
	doc, root, err := editableRoot(data)
	if err != nil {
		return nil, err
	}
	if doc == nil {
		out, err := appendToCommentsOnly(data, key, value)
		if err == nil && !verifySet(out, map[string]string{}, key, value) {
			err = fmt.Errorf("set %s: %w", key, errUnsafeEdit)
		}
		return out, err
	}
	before, err := flatten(root)
	if err != nil {
		return nil, err
	}
	occ, err := findKey(root, key)
	if err != nil {
		return nil, err
	}
	if out, ok := spliceSet(data, root, occ, key, value); ok && verifySet(out, before, key, value) {
		return out, nil
	}
	if len(occ) > 0 {
		last := occ[len(occ)-1]
		copyComments(value, last.parent.Content[last.i+1])
		last.parent.Content[last.i+1] = value
		removeOccurrences(occ[:len(occ)-1])
	} else {
		insertKey(root, key, value)
	}
	out, err := encodeDoc(doc, root)
	if err != nil {
		return nil, err
	}
	if !verifySet(out, before, key, value) {
		return nil, fmt.Errorf("set %s: %w", key, errUnsafeEdit)
	}
	return out, nil
}

// unsetInData removes every occurrence of key, and groups it leaves empty.
func unsetInData(data []byte, key string) ([]byte, bool, error) {
	doc, root, err := editableRoot(data)
	if err != nil || doc == nil {
		return data, false, err
	}
	before, err := flatten(root)
	if err != nil {
		return nil, false, err
	}
	occ, err := findKey(root, key)
	if err != nil || len(occ) == 0 {
		return data, false, err
	}
	if out, ok := spliceUnset(data, root, occ); ok && verifyUnset(out, before, key) {
		return out, true, nil
	}
	removeOccurrences(occ)
	pruneEmptyGroups(root, key)
	var out []byte
	if len(root.Content) == 0 {
		out = commentsOnly(doc, root) // the encoder would write "{}"
	} else if out, err = encodeDoc(doc, root); err != nil {
		return nil, false, err
	}
	if !verifyUnset(out, before, key) {
		return nil, false, fmt.Errorf("unset %s: %w", key, errUnsafeEdit)
	}
	return out, true, nil
}

// commentsOnly is what is left of a file when its last key is removed: its
// comments.
func commentsOnly(doc, root *yaml.Node) []byte {
	var b strings.Builder
	for _, c := range []string{doc.HeadComment, root.HeadComment, root.LineComment, root.FootComment, doc.FootComment} {
		if c != "" {
			b.WriteString(c)
			b.WriteByte('\n')
		}
	}
	return []byte(b.String())
}

// appendToCommentsOnly adds a key to a file that has no settings yet,
// keeping whatever comments it has.
func appendToCommentsOnly(data []byte, key string, value *yaml.Node) ([]byte, error) {
	var b bytes.Buffer
	if len(bytes.TrimSpace(data)) == 0 {
		b.WriteString(newFileHeader)
	} else {
		b.Write(data)
		if !bytes.HasSuffix(data, []byte("\n")) {
			b.WriteByte('\n')
		}
	}
	m := &yaml.Node{Kind: yaml.MappingNode}
	insertKey(m, key, value)
	out, err := encodeDoc(&yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{m}}, m)
	if err != nil {
		return nil, err
	}
	b.Write(out)
	return b.Bytes(), nil
}

func encodeDoc(doc, root *yaml.Node) ([]byte, error) {
	if err := fixDanglingAliases(doc); err != nil {
		return nil, err
	}
	spellOutFlowNulls(doc, false, 0)
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(detectIndent(root))
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("encode settings: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("encode settings: %w", err)
	}
	return b.Bytes(), nil
}

// spellOutFlowNulls writes "null" for the empty nulls of flow collections
// ({x: }, {x}): the encoder would turn them into empty strings, a different
// value.
func spellOutFlowNulls(n *yaml.Node, inFlow bool, depth int) {
	if depth > maxDepth {
		return
	}
	if n.Kind == yaml.ScalarNode && inFlow && n.Value == "" && n.ShortTag() == "!!null" {
		n.Value = "null"
	}
	inFlow = inFlow || n.Style&yaml.FlowStyle != 0
	for _, c := range n.Content {
		spellOutFlowNulls(c, inFlow, depth+1)
	}
}

// detectIndent keeps the file's own indentation width when re-encoding.
func detectIndent(root *yaml.Node) int {
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		if (v.Kind == yaml.MappingNode || v.Kind == yaml.SequenceNode) && v.Style&yaml.FlowStyle == 0 && len(v.Content) > 0 {
			if d := v.Content[0].Column - k.Column; d >= 2 && d <= 8 {
				return d
			}
		}
	}
	return 2
}

func copyComments(dst, src *yaml.Node) {
	dst.HeadComment, dst.LineComment, dst.FootComment = src.HeadComment, src.LineComment, src.FootComment
}

// verifySet parses edited text back: key must hold value exactly once and
// nothing else may have changed.
func verifySet(out []byte, before map[string]string, key string, value *yaml.Node) bool {
	after, ok := flattenText(out)
	if !ok {
		return false
	}
	want, err := canonical(value)
	if err != nil || after[key] != want || countKey(out, key) != 1 {
		return false
	}
	return sameExcept(before, after, key)
}

func verifyUnset(out []byte, before map[string]string, key string) bool {
	after, ok := flattenText(out)
	if !ok {
		return false
	}
	if _, still := after[key]; still {
		return false
	}
	return sameExcept(before, after, key)
}

func sameExcept(a, b map[string]string, key string) bool {
	for k, v := range a {
		if k != key && !strings.HasPrefix(k, key+".") && b[k] != v {
			return false
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok && k != key {
			return false
		}
	}
	return true
}

func countKey(data []byte, key string) int {
	doc, perr := parseDocument(data, "")
	if perr != nil || doc == nil || len(doc.Content) == 0 {
		return 0
	}
	occ, err := findKey(resolveAlias(doc.Content[0]), key)
	if err != nil {
		return 0
	}
	return len(occ)
}
