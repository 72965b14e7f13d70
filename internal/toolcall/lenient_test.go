package toolcall

import (
	"strings"
	"testing"
)

// TestTripleQuotedStrings: in tagged calls a value may be a Python
// triple-quoted string, as models write a file's content; quotes inside it
// are text. Valid JSON reads as before, and bare JSON in prose is strict.
func TestTripleQuotedStrings(t *testing.T) {
	py := "def f():\n    return \"x\" + 'y'\n"
	content := jsonString(py)
	runExtractCases(t, []extractCase{
		{name: "xml", in: "<tool_call>{\"name\": \"write_file\", \"arguments\": {\"path\": \"a.py\", \"content\": \"\"\"" + py + "\"\"\"}}</tool_call>",
			want: []want{{format: FormatXML, name: "write_file", args: `{"path":"a.py","content":` + content + `}`}}},
		{name: "single quotes", in: "<tool_call>{'name': 'write_file', 'arguments': {'path': 'a.py', 'content': '''" + py + "'''}}</tool_call>",
			want: []want{{format: FormatXML, name: "write_file", args: `{"path":"a.py","content":` + content + `}`}}},
		{name: "one and two quotes inside are text", in: "<tool_call>{\"name\": \"write_file\", \"arguments\": {\"content\": \"\"\"a \"\" b \" c\"\"\", \"path\": \"q\"}}</tool_call>",
			want: []want{{format: FormatXML, name: "write_file", args: `{"content":"a \"\" b \" c","path":"q"}`}}},
		{name: "escapes are read", in: "<tool_call>{\"name\": \"write_file\", \"arguments\": {\"content\": \"\"\"a\\nb\\\"\"\"\"}}</tool_call>",
			want: []want{{format: FormatXML, name: "write_file", args: `{"content":"a\nb\""}`}}},
		{name: "mistral v11", in: "[TOOL_CALLS]write_file[ARGS]{\"path\": \"a.py\", \"content\": \"\"\"" + py + "\"\"\"}",
			want: []want{{format: FormatBracket, name: "write_file", args: `{"path":"a.py","content":` + content + `}`}}},
		{name: "deepseek", in: "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>write_file<｜tool▁sep｜>{\"content\": \"\"\"" + py + "\"\"\"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
			want: []want{{format: FormatDeepSeek, name: "write_file", args: `{"content":` + content + `}`}}},
		{name: "empty strings stay empty strings", in: `<tool_call>{"name": "write_file", "arguments": {"path": "", "content": ""}}</tool_call>`,
			want: []want{{format: FormatXML, name: "write_file", args: `{"path":"","content":""}`}}},
		{name: "cut off inside", in: "<tool_call>{\"name\": \"write_file\", \"arguments\": {\"path\": \"a.py\", \"content\": \"\"\"def f():\n  \"\"",
			want: []want{{format: FormatXML, name: "write_file", args: `{"path":"a.py","content":"def f():\n  "}`, repaired: true}}},
		{name: "not in bare JSON", opts: knownOpts, in: "Like {\"name\": \"read_file\", \"arguments\": {\"path\": \"\"\"a\"\"\"}} this.",
			display: "Like {\"name\": \"read_file\", \"arguments\": {\"path\": \"\"\"a\"\"\"}} this."},
	})
	if c := Extract("<tool_call>{\"name\": \"write_file\", \"arguments\": {\"content\": \"\"\"abc", knownOpts); len(c) != 1 || !c[0].Incomplete {
		t.Errorf("a triple-quoted string cut off is not Incomplete: %s", dumpCalls(c))
	}
	// A long triple-quoted value with many quotes inside reads in one pass.
	big := strings.Repeat("say(\"hi\", \"\"); ", 20000)
	in := "<tool_call>{\"name\": \"write_file\", \"arguments\": {\"content\": \"\"\"" + big + "\"\"\"}}</tool_call>"
	if c := Extract(in, knownOpts); len(c) != 1 || !sameJSON(t, c[0].Arguments, `{"content":`+jsonString(big)+`}`) {
		t.Errorf("big triple-quoted content: %.300s", dumpCalls(c))
	}
}

// TestUnquotedMemberNames: in tagged calls a member name may be written
// without quotes, as in JavaScript; bare JSON in prose stays strict.
func TestUnquotedMemberNames(t *testing.T) {
	runExtractCases(t, []extractCase{
		{name: "xml", in: `<tool_call>{name: "read_file", arguments: {path: "a.go", max_lines: 20, $ref: true}}</tool_call>`,
			want: []want{{format: FormatXML, name: "read_file", args: `{"path":"a.go","max_lines":20,"$ref":true}`}}},
		{name: "mixed with quoted names", in: `<tool_call>{"name": "read_file", arguments: {'path': "a.go", limit : 3,}}</tool_call>`,
			want: []want{{format: FormatXML, name: "read_file", args: `{"path":"a.go","limit":3}`}}},
		{name: "mistral v11", in: `[TOOL_CALLS]read_file[ARGS]{path: "a.go"}`,
			want: []want{{format: FormatBracket, name: "read_file", args: `{"path":"a.go"}`}}},
		{name: "kimi", in: `<|tool_calls_section_begin|><|tool_call_begin|>functions.read_file:0<|tool_call_argument_begin|>{path: "a.go"}<|tool_call_end|><|tool_calls_section_end|>`,
			want: []want{{format: FormatKimi, name: "read_file", args: `{"path":"a.go"}`, id: "functions.read_file:0"}}},
		{name: "a name then no colon", in: `<tool_call>{name "read_file"}</tool_call>`,
			want: []want{{format: FormatXML, problem: true}}},
		{name: "cut off in a name", in: `<tool_call>{"name": "read_file", "arguments": {path: "a.go", lim`,
			want: []want{{format: FormatXML, name: "read_file", args: `{"path":"a.go"}`, repaired: true}}},
		{name: "not in bare JSON", opts: knownOpts, in: `Like {name: "read_file", arguments: {}} this.`,
			display: `Like {name: "read_file", arguments: {}} this.`},
	})
	if c := Extract(`<tool_call>{"name": "read_file", "arguments": {path: "a.go", lim`, knownOpts); len(c) != 1 || !c[0].Incomplete {
		t.Errorf("a call cut off in a member name is not Incomplete: %s", dumpCalls(c))
	}
}

// TestCommentsInTaggedCalls: // and /* */ comments in a tagged call's JSON
// are skipped; bare JSON in prose stays strict.
func TestCommentsInTaggedCalls(t *testing.T) {
	runExtractCases(t, []extractCase{
		{name: "line comments", in: "<tool_call>{\"name\": \"read_file\", // the tool\n\"arguments\": {\"path\": \"a.go\" // which file\n, \"limit\": 3}}</tool_call>",
			want: []want{{format: FormatXML, name: "read_file", args: `{"path":"a.go","limit":3}`}}},
		{name: "block comments", in: `<tool_call>{"name": /* tool */ "read_file", "arguments": {/**/"path"/* x */:/***/"a.go"/* end **/}}</tool_call>`,
			want: []want{{format: FormatXML, name: "read_file", args: `{"path":"a.go"}`}}},
		{name: "slashes in strings are text", in: `<tool_call>{"name": "read_file", "arguments": {"path": "http://x/*y*/"}}</tool_call>`,
			want: []want{{format: FormatXML, name: "read_file", args: `{"path":"http://x/*y*/"}`}}},
		{name: "after a number and an unquoted name", in: "<tool_call>{name//c\n: \"read_file\", arguments: {limit: 3// three\n}}</tool_call>",
			want: []want{{format: FormatXML, name: "read_file", args: `{"limit":3}`}}},
		{name: "a single slash is no comment", in: `<tool_call>{"name": "read_file", "arguments": {"limit": 1 / 2}}</tool_call>`,
			want: []want{{format: FormatXML, name: "read_file", problem: true}}},
		{name: "a quote before // in a value is text", in: "<tool_call>{\"name\": \"write_file\", \"arguments\": {\"content\": \"a := \"x\" // note\n\", \"path\": \"a.go\"}}</tool_call>",
			want: []want{{format: FormatXML, name: "write_file", args: `{"content":"a := \"x\" // note\n","path":"a.go"}`}}},
		{name: "cut off in a comment", in: `<tool_call>{"name": "read_file", "arguments": {"path": "a.go"} /* more`,
			want: []want{{format: FormatXML, name: "read_file", args: `{"path":"a.go"}`, repaired: true}}},
		{name: "not in bare JSON", opts: knownOpts, in: `Like {"name": "read_file", /* c */ "arguments": {}} this.`,
			display: `Like {"name": "read_file", /* c */ "arguments": {}} this.`},
	})
	if c := Extract(`<tool_call>{"name": "read_file", "arguments": {"path": /* cut`, knownOpts); len(c) != 1 || !c[0].Incomplete {
		t.Errorf("a call cut off in a comment where a value was due is not Incomplete: %s", dumpCalls(c))
	}
}

// TestMissingCommaAtLineEnd: in tagged calls a comma missing at the end of
// a line, before the next member name, is read as there; on one line it
// stays a Problem, and bare JSON in prose stays strict.
func TestMissingCommaAtLineEnd(t *testing.T) {
	runExtractCases(t, []extractCase{
		{name: "after strings and numbers", in: "<tool_call>{\"name\": \"read_file\"\n\"arguments\": {\n  \"path\": \"a.go\"\n  \"limit\": 20\n  offset: 3\n}\n}</tool_call>",
			want: []want{{format: FormatXML, name: "read_file", args: `{"path":"a.go","limit":20,"offset":3}`}}},
		{name: "after an object and a comment", in: "<tool_call>{\"arguments\": {\"path\": \"a.go\"} // the file\n\"name\": \"read_file\"}</tool_call>",
			want: []want{{format: FormatXML, name: "read_file", args: `{"path":"a.go"}`}}},
		{name: "mistral v11", in: "[TOOL_CALLS]read_file[ARGS]{\"path\": \"a.go\"\r\n\"limit\": true}",
			want: []want{{format: FormatBracket, name: "read_file", args: `{"path":"a.go","limit":true}`}}},
		{name: "on one line it is a problem", in: `<tool_call>{"name": "read_file", "arguments": {"path": "a.go" "limit": 20}}</tool_call>`,
			want: []want{{format: FormatXML, name: "read_file", problem: true}}},
		{name: "not between array elements", in: "<tool_call>{\"name\": \"read_file\", \"arguments\": {\"paths\": [\"a\"\n\"b\"]}}</tool_call>",
			want: []want{{format: FormatXML, name: "read_file", problem: true}}},
		{name: "not in bare JSON", opts: knownOpts, in: "Like {\"name\": \"read_file\"\n\"arguments\": {}} this.",
			display: "Like {\"name\": \"read_file\"\n\"arguments\": {}} this."},
	})
}
