package toolcall

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"
)

// nameKeys are the member names a model may use for the tool's name, in
// order of precedence (seed: name, tool, function; tool_name seen in the
// wild).
var nameKeys = [...]string{"name", "tool", "tool_name", "function"}

// argKeys are the member names a model may use for the arguments, in order
// of precedence.
var argKeys = [...]string{"arguments", "args", "params", "parameters"}

// emptyArgs is the arguments of a call that has none.
var emptyArgs = json.RawMessage(`{}`)

// callShape says where a call object keeps its name and arguments.
type callShape struct {
	name     string
	nameKey  string // member of the call object holding the name; "" for the nested form
	holder   *value // object holding the arguments member (the call or its "function")
	nested   bool   // OpenAI's {"function": {"name", "arguments"}}
	argKey   string // member holding the arguments; "" when they are top-level
	hasShape bool
}

// shapeOf finds the name of a call object: a string "name" first, then
// OpenAI's nested {"function": {"name": …}}, then "tool", "tool_name" or a
// string "function".
func shapeOf(v *value) callShape {
	if v == nil || v.kind != kindObject {
		return callShape{}
	}
	var sh callShape
	if n := v.get("name"); n != nil && n.kind == kindString {
		sh = callShape{name: n.str, nameKey: "name", holder: v, hasShape: true}
	} else if fn := v.get("function"); fn != nil && fn.kind == kindObject {
		sh = callShape{holder: fn, nested: true, hasShape: true}
		if n := fn.get("name"); n != nil && n.kind == kindString {
			sh.name = n.str
		}
	} else {
		for _, k := range nameKeys[1:] {
			if n := v.get(k); n != nil && n.kind == kindString {
				sh = callShape{name: n.str, nameKey: k, holder: v, hasShape: true}
				break
			}
		}
	}
	if !sh.hasShape {
		return sh
	}
	sh.name = strings.TrimSpace(sh.name)
	for _, k := range argKeys {
		if sh.holder.get(k) != nil {
			sh.argKey = k
			break
		}
	}
	return sh
}

// knownCall reports whether v is a call object naming a known tool.
func knownCall(v *value, known map[string]bool) bool {
	sh := shapeOf(v)
	return sh.hasShape && sh.name != "" && known[sh.name]
}

// unwrap returns the array of calls of an OpenAI-shaped message object
// ({"tool_calls": [{"function": {"name": …, "arguments": "…"}}, …]}, which
// models copy from their training data into text), or v itself.
func unwrap(v *value) *value {
	if v == nil || v.kind != kindObject || shapeOf(v).hasShape {
		return v
	}
	if tc := v.get("tool_calls"); tc != nil && tc.kind == kindArray && len(tc.elems) > 0 {
		return tc
	}
	return v
}

// allKnownCalls reports whether v is a known call, or a non-empty array of
// known calls (also under "tool_calls", see unwrap).
func allKnownCalls(v *value, known map[string]bool) bool {
	v = unwrap(v)
	if v.kind != kindArray {
		return knownCall(v, known)
	}
	for _, e := range v.elems {
		if !knownCall(e, known) {
			return false
		}
	}
	return len(v.elems) > 0
}

// callsFrom turns a parsed payload (one call object, or an array of them,
// also under "tool_calls") into calls.
func callsFrom(v *value, f Format, repaired bool) []Call {
	v = unwrap(v)
	if v.kind == kindArray {
		calls := make([]Call, 0, len(v.elems))
		for _, e := range v.elems {
			calls = append(calls, callFrom(e, f, repaired))
		}
		return calls
	}
	return []Call{callFrom(v, f, repaired)}
}

// callFrom turns one call object into a Call. Whatever is wrong with it is
// said in Problem, for the agent to pass back to the model.
func callFrom(v *value, f Format, repaired bool) Call {
	c := Call{Format: f, Repaired: repaired}
	if v.kind != kindObject {
		c.Problem = "a tool call must be a JSON object with a \"name\" and \"arguments\""
		c.RawArguments = string(v.encode())
		return c
	}
	sh := shapeOf(v)
	c.Name = sh.name
	if c.Name == "" {
		c.Problem = "the tool call has no tool name" + hintNoName
	}
	boundName(&c)
	if sh.argKey == "" && !sh.nested {
		// Top-level arguments: everything but the name, and OpenAI's
		// "type": "function" marker.
		args := &value{kind: kindObject}
		for i, k := range v.keys {
			if (sh.hasShape && k == sh.nameKey) || (k == "type" && v.elems[i].kind == kindString && v.elems[i].str == "function") {
				continue
			}
			args.keys = append(args.keys, k)
			args.elems = append(args.elems, v.elems[i])
		}
		c.Arguments = args.encode()
		return c
	}
	if id := v.get("id"); id != nil && id.kind == kindString {
		c.ID = id.str
	}
	var a *value
	if sh.holder != nil && sh.argKey != "" {
		a = sh.holder.get(sh.argKey)
	}
	setArguments(&c, a)
	return c
}

// setArguments fills c's arguments from the arguments member a, which may be
// missing, null, an object, or a string holding an object (OpenAI's wire
// form, which models copy).
func setArguments(c *Call, a *value) {
	switch {
	case a == nil || (a.kind == kindLiteral && a.str == "null"):
		c.Arguments = emptyArgs
	case a.kind == kindObject:
		c.Arguments = a.encode()
	case a.kind == kindString && strings.TrimSpace(a.str) == "":
		c.Arguments = emptyArgs
	case a.kind == kindString:
		// A string cut off with the call may hold a cut-off object.
		if obj, repaired := parseObject(a.str); obj != nil && (!repaired || c.Repaired) {
			c.Arguments = obj.encode()
			return
		}
		c.RawArguments = a.str
		c.Problem = joinProblem(c.Problem, "the arguments are a string that is not a JSON object")
	default:
		c.RawArguments = string(a.encode())
		c.Problem = joinProblem(c.Problem, "the arguments must be a JSON object")
	}
}

// parseObject parses s as one (lenient) JSON object with nothing but
// whitespace around it.
func parseObject(s string) (v *value, repaired bool) {
	t := strings.TrimSpace(s)
	if !strings.HasPrefix(t, "{") {
		return nil, false
	}
	p := newParser(0, false)
	b := []byte(t)
	p.feed(b)
	if p.open() {
		repaired = p.finish()
	}
	if !p.done() || (p.pos < len(b) && !repaired) {
		return nil, false
	}
	return p.root, repaired
}

// markCut marks the last call Incomplete when the parser that read it was
// cut off inside a value (only the last call of an array can have been).
func markCut(calls []Call, p *parser) []Call {
	if p != nil && p.cut && len(calls) > 0 {
		calls[len(calls)-1].Incomplete = true
	}
	return calls
}

// boundName cuts a tool name read from JSON, which has no length limit of
// its own, to maxNameLen bytes, and says so in Problem: such a name is no
// tool's, and the messages that repeat it stay short.
func boundName(c *Call) {
	if len(c.Name) <= maxNameLen {
		return
	}
	n := maxNameLen
	for n > 0 && !utf8.RuneStart(c.Name[n]) {
		n--
	}
	c.Name = c.Name[:n]
	c.Problem = joinProblem(c.Problem, "the tool name is longer than "+strconv.Itoa(maxNameLen)+" bytes")
}

func joinProblem(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}
