package toolcall

import (
	"strings"
	"unicode/utf8"
)

// A call's Problem is written for olly's own <tool_call> JSON: some of its
// texts end with a hint showing that form. Feedback replaces the hints with
// the call written in the model's own dialect.
const (
	problemNoObject = "expected a JSON object such as {\"name\": \"tool_name\", \"arguments\": {…}} after <tool_call>"
	hintRewrite     = "; write the JSON object again, with quotes and backslashes inside strings escaped"
	hintNoName      = ": write {\"name\": \"tool_name\", \"arguments\": {…}}"
	hintBracketArgs = ": [TOOL_CALLS]name[ARGS]{…}"
	hintToolCode    = `; write one call per line as tool_name(arg="value", other=1)`
)

// Size bounds of what a Problem and Feedback repeat of the model's text:
// a huge malformed output gives a short message.
const (
	// maxQuoted bytes of an offending token are quoted in a Problem.
	maxQuoted = 64
	// maxReason bytes of a Problem are repeated by Feedback.
	maxReason = 400
	// maxExample bytes of an example call; a longer one is shown without
	// its arguments.
	maxExample = 2048
	// maxExampleArgs parameters at most are shown by ExampleArgs.
	maxExampleArgs = 8
)

// valueRules says how a dialect writes argument values, as the system
// prompt's rules do (internal/agent/prompts/text_tools.md).
var valueRules = map[Format]string{
	FormatGLM:      "Write each value as it is, without quotes or escapes; a list or an object as JSON.",
	FormatInvoke:   "Write each value as it is, without quotes or escapes; a list or an object as JSON.",
	FormatFunction: "Write each value as it is, without quotes or escapes.",
	FormatToolCode: "Keyword arguments only, each value a Python literal (a string, a number, True, False, None, a list or a dict).",
}

const jsonValueRule = `Strings are JSON strings: write quotes, backslashes and newlines as \", \\ and \n.`

// Feedback is what a model that writes its calls in dialect d is told
// about c, a call that cannot run as written (its Problem is set): what
// was wrong, and the call written correctly in d — tool name with args (a
// JSON object, as FormatCall takes them; ExampleArgs makes placeholder
// arguments from a tool's schema). With no dialect ("", or FormatXML,
// which is olly's own <tool_call> JSON) it is c.Problem unchanged. The
// message repeats at most maxReason bytes of the Problem, and a Problem
// quotes at most maxQuoted bytes of a token the model wrote, so a huge
// malformed output gives a short message.
func Feedback(d Format, c Call, name string, args []byte) string {
	if d == "" || d == FormatXML || c.Problem == "" {
		return c.Problem
	}
	example, err := FormatCall(d, name, args)
	if err == nil && len(example) > maxExample {
		example, err = FormatCall(d, name, []byte("{}"))
	}
	if err != nil {
		return c.Problem
	}
	rule := valueRules[d]
	if rule == "" {
		rule = jsonValueRule
	}
	who := "tool call"
	if isToolName(c.Name) {
		who = c.Name + " call"
	}
	return "Your " + who + " was not run: " + clip(reason(c.Problem), maxReason) +
		". Write it again in this form:\n" + example + "\n" + rule
}

// reason is a Problem without the hints that show the <tool_call> JSON form.
func reason(p string) string {
	p = strings.ReplaceAll(p, problemNoObject, "expected a tool call after <tool_call>")
	for _, h := range []string{hintRewrite, hintNoName, hintBracketArgs, hintToolCode} {
		p = strings.ReplaceAll(p, h, "")
	}
	return p
}

// isToolName reports whether s reads as a tool name in a message.
func isToolName(s string) bool {
	if s == "" || len(s) > maxNameLen {
		return false
	}
	for i := range len(s) {
		if !isNameByte(s[i]) {
			return false
		}
	}
	return true
}

// clip returns s cut to at most n bytes, at a character boundary, with
// "…" when it was cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// ExampleArgs returns the arguments of an example call of a tool whose
// parameters have the JSON Schema schema: its required parameters (at
// most maxExampleArgs, in the order "required" lists them), each with a
// placeholder of its type — "…" for a string (and an untyped parameter),
// 1 for a number, true, [] or {}. A schema without required parameters,
// or one that does not read, gives {}.
func ExampleArgs(schema []byte) []byte {
	root, repaired := parseObject(string(schema))
	req := root.get("required")
	if root == nil || repaired || req == nil || req.kind != kindArray {
		return []byte("{}")
	}
	props := root.get("properties")
	out := &value{kind: kindObject}
	for _, e := range req.elems {
		if len(out.keys) == maxExampleArgs {
			break
		}
		if e.kind != kindString || !isToolName(e.str) || firstIndex(out.keys, e.str) >= 0 {
			continue
		}
		out.keys = append(out.keys, e.str)
		out.elems = append(out.elems, placeholder(props.get(e.str).get("type")))
	}
	return out.encode()
}

// placeholder is the example value of a parameter of a schema type.
func placeholder(typ *value) *value {
	t := ""
	switch {
	case typ == nil:
	case typ.kind == kindString:
		t = typ.str
	case typ.kind == kindArray:
		for _, e := range typ.elems {
			if e.kind == kindString && e.str != "null" {
				t = e.str
				break
			}
		}
	}
	switch t {
	case "integer", "number":
		return &value{kind: kindNumber, str: "1"}
	case "boolean":
		return &value{kind: kindLiteral, str: "true"}
	case "array":
		return &value{kind: kindArray}
	case "object":
		return &value{kind: kindObject}
	}
	return &value{kind: kindString, str: "…"}
}
