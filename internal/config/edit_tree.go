package config

import (
	"errors"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// occurrence is one place a key is written: the pair at Content[i],
// Content[i+1] of a mapping.
type occurrence struct {
	parent *yaml.Node
	i      int
}

// errAliased refuses edits through a YAML alias: the change would land on
// the anchored value, which other keys share.
var errAliased = errors.New("the key is set through a YAML alias (*name); edit the file by hand")

// errTooComplex refuses files whose aliases expand beyond reason.
var errTooComplex = errors.New("the file is nested too deeply or expands too many aliases to edit safely; edit it by hand")

// maxDepth bounds nesting: olly's keys are at most a few levels deep, and an
// alias can make a mapping contain itself.
const maxDepth = 32

// findKey finds every place key is written, nested or dotted.
func findKey(root *yaml.Node, key string) ([]occurrence, error) {
	var out []occurrence
	err := findIn(root, "", key, false, &out)
	return out, err
}

func findIn(m *yaml.Node, prefix, key string, viaAlias bool, out *[]occurrence) error {
	for i := 0; i+1 < len(m.Content); i += 2 {
		k := m.Content[i]
		if k.Kind != yaml.ScalarNode {
			continue
		}
		full := joinKey(prefix, k.Value)
		if full == key {
			if viaAlias {
				return errAliased
			}
			*out = append(*out, occurrence{parent: m, i: i})
			continue
		}
		// Each step down lengthens full, so this ends even when an alias
		// makes a mapping contain itself.
		if strings.HasPrefix(key, full+".") {
			v := m.Content[i+1]
			alias := viaAlias || v.Kind == yaml.AliasNode
			if v = resolveAlias(v); v.Kind == yaml.MappingNode {
				if err := findIn(v, full, key, alias, out); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// flatten maps every key a file sets, as loading reads it, to a canonical
// form of its value; comparing two flattenings tells whether an edit changed
// anything it should not have.
func flatten(root *yaml.Node) (map[string]string, error) {
	out := map[string]string{}
	budget := 200_000
	err := flattenIn(root, "", out, &budget, 0)
	return out, err
}

func flattenText(data []byte) (map[string]string, bool) {
	doc, perr := parseDocument(data, "")
	if perr != nil {
		return nil, false
	}
	if doc == nil || len(doc.Content) == 0 {
		return map[string]string{}, true
	}
	root := resolveAlias(doc.Content[0])
	if root.Kind != yaml.MappingNode {
		return map[string]string{}, root.Kind == yaml.ScalarNode && root.ShortTag() == "!!null"
	}
	flat, err := flatten(root)
	return flat, err == nil
}

func flattenIn(m *yaml.Node, prefix string, out map[string]string, budget *int, depth int) error {
	if depth > maxDepth {
		return errTooComplex
	}
	r := keys()
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], resolveAlias(m.Content[i+1])
		ks, err := canonicalBudget(k, budget)
		if err != nil {
			return err
		}
		full := joinKey(prefix, k.Value)
		if k.Kind != yaml.ScalarNode {
			full = joinKey(prefix, ks)
		}
		if r.groups[full] && v.Kind == yaml.ScalarNode && v.ShortTag() == "!!null" {
			continue // an empty group, which loading skips too
		}
		if r.byKey[full] == nil && v.Kind == yaml.MappingNode {
			if err := flattenIn(v, full, out, budget, depth+1); err != nil {
				return err
			}
			continue
		}
		c, err := canonicalBudget(v, budget)
		if err != nil {
			return err
		}
		if prev, dup := out[full]; dup {
			c = prev + "|" + c
		}
		out[full] = c
	}
	return nil
}

// canonical writes a value ignoring style, comments and position.
func canonical(n *yaml.Node) (string, error) {
	budget := 200_000
	return canonicalBudget(n, &budget)
}

func canonicalBudget(n *yaml.Node, budget *int) (string, error) {
	var b strings.Builder
	err := canon(&b, n, budget, 0)
	return b.String(), err
}

func canon(b *strings.Builder, n *yaml.Node, budget *int, depth int) error {
	*budget--
	if *budget < 0 || depth > maxDepth {
		return errTooComplex
	}
	n = resolveAlias(n)
	switch n.Kind {
	case yaml.ScalarNode:
		b.WriteString(n.ShortTag())
		if n.ShortTag() != "!!null" { // null is written "", "~" or "null" alike
			b.WriteByte(':')
			b.WriteString(strconv.Quote(n.Value))
		}
		return nil
	case yaml.SequenceNode, yaml.MappingNode:
		open, end := byte('['), byte(']')
		if n.Kind == yaml.MappingNode {
			open, end = '{', '}'
		}
		b.WriteByte(open)
		for i, c := range n.Content {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := canon(b, c, budget, depth+1); err != nil {
				return err
			}
		}
		b.WriteByte(end)
		return nil
	}
	b.WriteString("?")
	return nil
}

// insertKey adds key to the tree: inside its group's mapping when the file
// has one, as a dotted key when the file writes that group's keys dotted,
// and otherwise as a new nested group.
func insertKey(root *yaml.Node, key string, value *yaml.Node) {
	m, rest := deepestGroup(root, key)
	if m == root && len(rest) > 1 && usesDottedKeys(root, rest[0]) {
		root.Content = append(root.Content, scalar("!!str", strings.Join(rest, ".")), value)
		return
	}
	for _, g := range rest[:len(rest)-1] {
		child := &yaml.Node{Kind: yaml.MappingNode}
		m.Content = append(m.Content, scalar("!!str", g), child)
		m = child
	}
	m.Content = append(m.Content, scalar("!!str", rest[len(rest)-1]), value)
}

// deepestGroup follows key's groups down the nested mappings that exist. It
// returns the deepest one and the parts of key below it. An empty group
// ("agent:" and nothing) becomes a mapping so the key can go in it.
func deepestGroup(root *yaml.Node, key string) (*yaml.Node, []string) {
	segs := strings.Split(key, ".")
	m := root
	for i := 0; i < len(segs)-1; i++ {
		next := childGroup(m, segs[i])
		if next == nil {
			return m, segs[i:]
		}
		m = next
	}
	return m, segs[len(segs)-1:]
}

func childGroup(m *yaml.Node, name string) *yaml.Node {
	for i := len(m.Content) - 2; i >= 0; i -= 2 {
		k, v := m.Content[i], m.Content[i+1]
		if k.Kind != yaml.ScalarNode || k.Value != name {
			continue
		}
		switch {
		case v.Kind == yaml.MappingNode:
			return v
		case v.Kind == yaml.ScalarNode && v.ShortTag() == "!!null":
			g := &yaml.Node{Kind: yaml.MappingNode}
			copyComments(g, v)
			m.Content[i+1] = g
			return g
		}
	}
	return nil
}

func usesDottedKeys(root *yaml.Node, group string) bool {
	for i := 0; i+1 < len(root.Content); i += 2 {
		if k := root.Content[i]; k.Kind == yaml.ScalarNode && strings.HasPrefix(k.Value, group+".") {
			return true
		}
	}
	return false
}

// removeOccurrences deletes the pairs occ points at.
func removeOccurrences(occ []occurrence) {
	keyNodes := make(map[*yaml.Node]bool, len(occ))
	parents := map[*yaml.Node]bool{}
	for _, o := range occ {
		keyNodes[o.parent.Content[o.i]] = true
		parents[o.parent] = true
	}
	for p := range parents {
		removePairs(p, func(k, _ *yaml.Node) bool { return keyNodes[k] })
	}
}

// removePairs deletes the pairs drop selects from mapping m. Comments above
// or below a removed pair move to the next pair (or the end of the
// mapping): they may be section headings or commented-out settings, and an
// edit never deletes what the person wrote besides the setting itself.
func removePairs(m *yaml.Node, drop func(k, v *yaml.Node) bool) {
	kept := m.Content[:0]
	carry := ""
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if drop(k, v) {
			carry = joinComments(carry, k.HeadComment, v.HeadComment, v.FootComment, k.FootComment)
			continue
		}
		if carry != "" {
			k.HeadComment = joinComments(carry, k.HeadComment)
			carry = ""
		}
		kept = append(kept, k, v)
	}
	m.Content = kept
	if carry != "" {
		m.FootComment = joinComments(m.FootComment, carry)
	}
}

func joinComments(parts ...string) string {
	var nonEmpty []string
	for _, p := range parts {
		if p != "" {
			nonEmpty = append(nonEmpty, p)
		}
	}
	return strings.Join(nonEmpty, "\n")
}

// pruneEmptyGroups removes group mappings left with no keys along key's
// path, so `unset agent.maxIterations` does not leave "agent: {}" behind.
func pruneEmptyGroups(root *yaml.Node, key string) {
	pruneIn(root, "", key)
}

func pruneIn(m *yaml.Node, prefix, key string) {
	removePairs(m, func(k, v *yaml.Node) bool {
		full := joinKey(prefix, k.Value)
		if k.Kind != yaml.ScalarNode || v.Kind != yaml.MappingNode || !strings.HasPrefix(key, full+".") {
			return false
		}
		pruneIn(v, full, key)
		return len(v.Content) == 0
	})
}

// fixDanglingAliases replaces each alias whose anchored value an edit
// removed from the tree with a copy of that value, so keys that shared it
// keep their values.
func fixDanglingAliases(doc *yaml.Node) error {
	inTree := map[*yaml.Node]bool{}
	var mark func(n *yaml.Node)
	mark = func(n *yaml.Node) {
		inTree[n] = true
		for _, c := range n.Content {
			mark(c)
		}
	}
	mark(doc)
	budget := 100_000
	var fix func(n *yaml.Node, depth int) error
	fix = func(n *yaml.Node, depth int) error {
		if depth > maxDepth {
			return errTooComplex
		}
		for i, c := range n.Content {
			if c.Kind == yaml.AliasNode && c.Alias != nil && !inTree[c.Alias] {
				cp, err := copyNode(c.Alias, &budget, 0)
				if err != nil {
					return err
				}
				copyComments(cp, c)
				n.Content[i], c = cp, cp
			}
			if err := fix(c, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	return fix(doc, 0)
}

// copyNode copies a value without its anchor.
func copyNode(n *yaml.Node, budget *int, depth int) (*yaml.Node, error) {
	if *budget--; *budget < 0 || depth > maxDepth {
		return nil, errTooComplex
	}
	cp := *n
	cp.Anchor = ""
	cp.Content = make([]*yaml.Node, len(n.Content))
	for i, c := range n.Content {
		cc, err := copyNode(c, budget, depth+1)
		if err != nil {
			return nil, err
		}
		cp.Content[i] = cc
	}
	return &cp, nil
}
