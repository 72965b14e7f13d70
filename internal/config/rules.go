package config

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"go.yaml.in/yaml/v3"
)

// rulesKind reads agent.sensitiveFilePatterns. Three forms are accepted, all
// giving rules in the order written (evaluation is last-match-wins, so order
// is meaning):
//
//	# a mapping of glob to action (YAML keeps the order of a mapping)
//	"**/*": auto
//	"**/.env*": ask
//
//	# a list of {pattern, action}
//	- {pattern: "**/*", action: auto}
//
//	# the seed's booleans, converted: true = auto, false = ask
//	"**/*": true
//	"**/.env*": false
type rulesKind struct{}

func (rulesKind) goType() reflect.Type { return rulesType }
func (rulesKind) typeName() string     { return "file rules" }

func (rulesKind) fromNode(e *entry, n *yaml.Node) (any, *problem) {
	switch n.Kind {
	case yaml.MappingNode:
		return rulesFromMapping(n)
	case yaml.SequenceNode:
		return rulesFromList(n)
	}
	return nil, typeProblem(e, describe(n))
}

func rulesFromMapping(n *yaml.Node) ([]FileRule, *problem) {
	rules := make([]FileRule, 0, len(n.Content)/2)
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := resolveAlias(n.Content[i]), resolveAlias(n.Content[i+1])
		if k.Kind != yaml.ScalarNode {
			return nil, &problem{kind: ErrType, line: k.Line, msg: "a pattern must be a string such as \"**/*.env\", got " + describe(k)}
		}
		if first, dup := seen[k.Value]; dup {
			return nil, &problem{kind: ErrDuplicate, line: k.Line,
				msg: fmt.Sprintf("pattern %q is listed twice (first at line %d); keep one", k.Value, first)}
		}
		seen[k.Value] = k.Line
		r, p := newRule(k.Value, v)
		if p != nil {
			return nil, p
		}
		rules = append(rules, r)
	}
	return rules, nil
}

func rulesFromList(n *yaml.Node) ([]FileRule, *problem) {
	rules := make([]FileRule, 0, len(n.Content))
	for i, item := range n.Content {
		item = resolveAlias(item)
		if item.Kind != yaml.MappingNode {
			return nil, &problem{kind: ErrType, line: item.Line,
				msg: fmt.Sprintf("item %d: expected {pattern: GLOB, action: ask|auto}, got %s", i+1, describe(item))}
		}
		var pattern, action *yaml.Node
		for j := 0; j+1 < len(item.Content); j += 2 {
			k, v := resolveAlias(item.Content[j]), resolveAlias(item.Content[j+1])
			switch k.Value {
			case "pattern":
				pattern = v
			case "action":
				action = v
			default:
				return nil, &problem{kind: ErrType, line: k.Line,
					msg: fmt.Sprintf("item %d: unknown field %q: each item has only pattern and action", i+1, k.Value)}
			}
		}
		if pattern == nil || action == nil {
			return nil, &problem{kind: ErrType, line: item.Line,
				msg: fmt.Sprintf("item %d: needs both pattern and action, e.g. {pattern: \"**/*.key\", action: ask}", i+1)}
		}
		if pattern.Kind != yaml.ScalarNode || pattern.ShortTag() == "!!null" {
			return nil, &problem{kind: ErrType, line: pattern.Line,
				msg: fmt.Sprintf("item %d: pattern must be a string, got %s", i+1, describe(pattern))}
		}
		r, p := newRule(pattern.Value, action)
		if p != nil {
			return nil, p
		}
		rules = append(rules, r)
	}
	return rules, nil
}

// newRule checks a glob and reads its action: ask or auto, or the seed's
// boolean, whose meaning is inverted from the setting's name — true means
// "not sensitive" (auto) and false means "sensitive" (ask), seed pitfall #6.
func newRule(pattern string, v *yaml.Node) (FileRule, *problem) {
	if strings.TrimSpace(pattern) == "" || !doublestar.ValidatePattern(pattern) {
		return FileRule{}, &problem{kind: ErrInvalid, line: v.Line,
			msg: fmt.Sprintf("pattern %q is not a valid glob (doublestar syntax, e.g. \"**/*.pem\")", pattern)}
	}
	if v.Kind == yaml.ScalarNode {
		switch {
		case v.ShortTag() == "!!bool" && strings.EqualFold(v.Value, "true"):
			return FileRule{Pattern: pattern, Action: FileAuto}, nil
		case v.ShortTag() == "!!bool":
			return FileRule{Pattern: pattern, Action: FileAsk}, nil
		case v.ShortTag() == "!!str" && (v.Value == string(FileAsk) || v.Value == string(FileAuto)):
			return FileRule{Pattern: pattern, Action: FileAction(v.Value)}, nil
		}
	}
	return FileRule{}, &problem{kind: ErrEnum, line: v.Line,
		msg: fmt.Sprintf("pattern %q: action must be ask or auto (or the seed's true = auto, false = ask), got %s", pattern, describe(v))}
}

func (k rulesKind) fromText(e *entry, s string) (any, *problem) {
	n, err := parseValueText(s)
	if err != nil {
		return nil, problemf(ErrType, "expected %s: %v", e.expect(), err)
	}
	return k.fromNode(e, n)
}

// toNode writes the mapping form when every pattern is distinct (the
// readable one), and the list form otherwise.
func (rulesKind) toNode(v any) *yaml.Node {
	rules := v.([]FileRule)
	if distinctPatterns(rules) {
		n := &yaml.Node{Kind: yaml.MappingNode}
		for _, r := range rules {
			n.Content = append(n.Content, scalar("!!str", r.Pattern), scalar("!!str", string(r.Action)))
		}
		return n
	}
	n := &yaml.Node{Kind: yaml.SequenceNode}
	for _, r := range rules {
		n.Content = append(n.Content, &yaml.Node{Kind: yaml.MappingNode, Style: yaml.FlowStyle, Content: []*yaml.Node{
			scalar("!!str", "pattern"), scalar("!!str", r.Pattern), scalar("!!str", "action"), scalar("!!str", string(r.Action)),
		}})
	}
	return n
}

// text is one line in flow style, which fromText reads back.
func (k rulesKind) text(v any) string {
	n := k.toNode(v)
	n.Style = yaml.FlowStyle
	return nodeText(n)
}

func (rulesKind) jsonValue(v any) any { return v }

func distinctPatterns(rules []FileRule) bool {
	seen := make(map[string]bool, len(rules))
	for _, r := range rules {
		if seen[r.Pattern] {
			return false
		}
		seen[r.Pattern] = true
	}
	return true
}

// rulesSummary is the short form used in listings: the rule count and the
// first rules.
func rulesSummary(rules []FileRule) string {
	parts := make([]string, 0, 3)
	for i, r := range rules {
		if i == 2 {
			parts = append(parts, "…")
			break
		}
		parts = append(parts, strconv.Quote(r.Pattern)+": "+string(r.Action))
	}
	return fmt.Sprintf("%d rules: %s", len(rules), strings.Join(parts, ", "))
}

// ParseFileRules reads file rules written as YAML or JSON in any of the
// accepted forms (a mapping of glob to ask/auto or to the seed's booleans,
// or a list of {pattern, action}): a session's stored rules.
func ParseFileRules(data []byte) ([]FileRule, error) {
	e := keys().byKey["agent.sensitiveFilePatterns"]
	v, p := rulesKind{}.fromText(e, string(data))
	if p != nil {
		return nil, fmt.Errorf("file rules: %s", p.msg)
	}
	return v.([]FileRule), nil
}
