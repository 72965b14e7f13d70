package toolcall

import (
	"strings"
	"testing"
)

// sourceFile is a whole Go file as a model would put it in write_file: braces,
// quotes, backslashes, a closing tag inside a string, a unicode escape.
const sourceFile = `package main

import "fmt"

// tag is what olly looks for: "</tool_call>" must not end the call.
const tag = "</tool_call>"

func main() {
	m := map[string]int{"a": 1}
	if v, ok := m["a"]; ok {
		fmt.Printf("%d {braces} \"quoted\" \\ back\n", v)
	}
	s := ` + "`raw {string}`" + `
	_ = s
}
`

// jsonString encodes s as a JSON string literal.
func jsonString(s string) string { return string(appendString(nil, s)) }

type extractCase struct {
	name    string
	in      string
	opts    Options
	want    []want
	display string // Strip(in)
}

func runExtractCases(t *testing.T, tests []extractCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkCalls(t, tt.in, Extract(tt.in, tt.opts), tt.want)
			if got := Strip(tt.in, tt.opts); got != tt.display {
				t.Errorf("Strip = %q, want %q", got, tt.display)
			}
			checkStreaming(t, tt.in, tt.opts)
		})
	}
}

func TestExtractXML(t *testing.T) {
	writeArgs := `{"path":"main.go","content":` + jsonString(sourceFile) + `}`
	runExtractCases(t, []extractCase{
		{name: "simple", in: `<tool_call>{"name": "read_file", "arguments": {"path": "a.go"}}</tool_call>`,
			want: []want{{format: FormatXML, name: "read_file", args: `{"path":"a.go"}`}}},
		{name: "mixed with prose", in: "Let me look.\n<tool_call>{\"name\": \"read_file\", \"arguments\": {\"path\": \"a.go\"}}</tool_call>\nThen I will fix it.",
			want:    []want{{format: FormatXML, name: "read_file", args: `{"path":"a.go"}`}},
			display: "Let me look.\n\nThen I will fix it."},
		{name: "whitespace and newlines inside the tags", in: "<tool_call>\n  \n{\n  \"name\": \"read_file\",\n  \"arguments\": {\"path\": \"a\"}\n}\n\n</tool_call>",
			want: []want{{format: FormatXML, name: "read_file", args: `{"path":"a"}`}}},
		{name: "several calls", in: `<tool_call>{"name": "read_file", "arguments": {"path": "a"}}</tool_call>` + "\n" + `<tool_call>{"name": "read_file", "arguments": {"path": "b"}}</tool_call>`,
			want: []want{
				{format: FormatXML, name: "read_file", args: `{"path":"a"}`},
				{format: FormatXML, name: "read_file", args: `{"path":"b"}`},
			}, display: "\n"},
		{name: "two objects in one tag", in: "<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}}\n{\"name\": \"list_files\", \"arguments\": {}}\n</tool_call>",
			want: []want{
				{format: FormatXML, name: "read_file", args: `{"path":"a"}`},
				{format: FormatXML, name: "list_files", args: `{}`},
			}},
		{name: "array in one tag", in: `<tool_call>[{"name": "read_file", "arguments": {"path": "a"}}, {"name": "read_file", "arguments": {"path": "b"}}]</tool_call>`,
			want: []want{
				{format: FormatXML, name: "read_file", args: `{"path":"a"}`},
				{format: FormatXML, name: "read_file", args: `{"path":"b"}`},
			}},
		{name: "json fence inside the tags", in: "<tool_call>\n```json\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}}\n```\n</tool_call>",
			want: []want{{format: FormatXML, name: "read_file", args: `{"path":"a"}`}}},
		{name: "no closing tag at the end", in: "Reading.\n<tool_call>{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}}\n",
			want:    []want{{format: FormatXML, name: "read_file", args: `{"path":"a"}`}},
			display: "Reading.\n"},
		{name: "no closing tag, prose after", in: "<tool_call>{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}}\nI will wait for the result.",
			want:    []want{{format: FormatXML, name: "read_file", args: `{"path":"a"}`}},
			display: "I will wait for the result."},
		{name: "no closing tag, next call", in: `<tool_call>{"name": "read_file", "arguments": {"path": "a"}}<tool_call>{"name": "read_file", "arguments": {"path": "b"}}</tool_call>`,
			want: []want{
				{format: FormatXML, name: "read_file", args: `{"path":"a"}`},
				{format: FormatXML, name: "read_file", args: `{"path":"b"}`},
			}},
		{name: "extra closing brace", in: `<tool_call>{"name": "read_file", "arguments": {"path": "a"}}}</tool_call> ok`,
			want:    []want{{format: FormatXML, name: "read_file", args: `{"path":"a"}`}},
			display: " ok"},
		{name: "repeated opening tag", in: `<tool_call><tool_call>{"name": "read_file", "arguments": {"path": "a"}}</tool_call>`,
			want: []want{{format: FormatXML, name: "read_file", args: `{"path":"a"}`}}},
		{name: "stray closing tag is removed", in: "done</tool_call> here",
			display: "done here"},
		{name: "whole source file with braces and a closing tag in a string", in: "<tool_call>{\"name\": \"write_file\", \"arguments\": " + writeArgs + "}</tool_call>",
			want: []want{{format: FormatXML, name: "write_file", args: writeArgs}}},
		{name: "unescaped quotes in content", in: `<tool_call>{"name": "write_file", "arguments": {"path": "a.py", "content": "print("hi")"}}</tool_call>`,
			want: []want{{format: FormatXML, name: "write_file", args: `{"path":"a.py","content":"print(\"hi\")"}`}}},
		{name: "literal newlines in content", in: "<tool_call>{\"name\": \"write_file\", \"arguments\": {\"path\": \"a\", \"content\": \"line 1\nline 2\n\"}}</tool_call>",
			want: []want{{format: FormatXML, name: "write_file", args: `{"path":"a","content":"line 1\nline 2\n"}`}}},
		{name: "unicode escapes", in: `<tool_call>{"name": "write_file", "arguments": {"path": "a", "content": "caf\u00e9 \ud83d\ude00"}}</tool_call>`,
			want: []want{{format: FormatXML, name: "write_file", args: `{"path":"a","content":"café 😀"}`}}},
		{name: "regex with unknown escapes", in: `<tool_call>{"name": "search_workspace", "arguments": {"query": "func \w+\(", "isRegex": true}}</tool_call>`,
			want: []want{{format: FormatXML, name: "search_workspace", args: `{"query":"func \\w+\\(","isRegex":true}`}}},
		{name: "python style", in: `<tool_call>{'name': 'read_file', 'arguments': {'path': 'a', 'follow': True, 'limit': None,},}</tool_call>`,
			want: []want{{format: FormatXML, name: "read_file", args: `{"path":"a","follow":true,"limit":null}`}}},
		{name: "the same in any chunking", in: "x <tool_call>{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}}</tool_call> y",
			want:    []want{{format: FormatXML, name: "read_file", args: `{"path":"a"}`}},
			display: "x  y"},
	})
}

func TestExtractFields(t *testing.T) {
	runExtractCases(t, []extractCase{
		{name: "tool field", in: `<tool_call>{"tool": "read_file", "arguments": {"path": "a"}}</tool_call>`,
			want: []want{{format: FormatXML, name: "read_file", args: `{"path":"a"}`}}},
		{name: "function field as string", in: `<tool_call>{"function": "read_file", "args": {"path": "a"}}</tool_call>`,
			want: []want{{format: FormatXML, name: "read_file", args: `{"path":"a"}`}}},
		{name: "tool_name field", in: `<tool_call>{"tool_name": "read_file", "params": {"path": "a"}}</tool_call>`,
			want: []want{{format: FormatXML, name: "read_file", args: `{"path":"a"}`}}},
		{name: "parameters field", in: `<tool_call>{"name": "read_file", "parameters": {"path": "a"}}</tool_call>`,
			want: []want{{format: FormatXML, name: "read_file", args: `{"path":"a"}`}}},
		{name: "OpenAI nested function with string arguments", in: `<tool_call>{"id": "call_1", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\": \"a\"}"}}</tool_call>`,
			want: []want{{format: FormatXML, name: "read_file", args: `{"path":"a"}`, id: "call_1"}}},
		{name: "arguments as a JSON string", in: `<tool_call>{"name": "read_file", "arguments": "{\"path\": \"a\", \"n\": 2}"}</tool_call>`,
			want: []want{{format: FormatXML, name: "read_file", args: `{"path":"a","n":2}`}}},
		{name: "top-level arguments", in: `<tool_call>{"name": "read_file", "path": "a", "startLine": 3}</tool_call>`,
			want: []want{{format: FormatXML, name: "read_file", args: `{"path":"a","startLine":3}`}}},
		{name: "top-level arguments keep id", in: `<tool_call>{"name": "get_issue", "id": "42"}</tool_call>`,
			want: []want{{format: FormatXML, name: "get_issue", args: `{"id":"42"}`}}},
		{name: "no arguments", in: `<tool_call>{"name": "get_diagnostics"}</tool_call>`,
			want: []want{{format: FormatXML, name: "get_diagnostics", args: `{}`}}},
		{name: "null arguments", in: `<tool_call>{"name": "get_diagnostics", "arguments": null}</tool_call>`,
			want: []want{{format: FormatXML, name: "get_diagnostics", args: `{}`}}},
		{name: "empty string arguments", in: `<tool_call>{"name": "get_diagnostics", "arguments": ""}</tool_call>`,
			want: []want{{format: FormatXML, name: "get_diagnostics", args: `{}`}}},
		{name: "name is trimmed", in: `<tool_call>{"name": " read_file\n", "arguments": {}}</tool_call>`,
			want: []want{{format: FormatXML, name: "read_file", args: `{}`}}},
		{name: "arguments that are not an object", in: `<tool_call>{"name": "run_terminal_command", "arguments": "ls -la"}</tool_call>`,
			want: []want{{format: FormatXML, name: "run_terminal_command", problem: true}}},
		{name: "arguments array", in: `<tool_call>{"name": "read_file", "arguments": ["a"]}</tool_call>`,
			want: []want{{format: FormatXML, name: "read_file", problem: true}}},
		{name: "no name", in: `<tool_call>{"arguments": {"path": "a"}}</tool_call>`,
			want: []want{{format: FormatXML, args: `{"arguments":{"path":"a"}}`, problem: true}}},
		{name: "not an object", in: `<tool_call>["read_file"]</tool_call>`,
			want: []want{{format: FormatXML, problem: true}}},
	})
	// RawArguments keeps what could not be used.
	c := Extract(`<tool_call>{"name": "run_terminal_command", "arguments": "ls -la"}</tool_call>`, Options{})
	if len(c) != 1 || c[0].RawArguments != "ls -la" {
		t.Fatalf("RawArguments = %q, want the string the model wrote", c[0].RawArguments)
	}
}

func TestExtractMalformedXML(t *testing.T) {
	runExtractCases(t, []extractCase{
		{name: "empty tags", in: `a<tool_call></tool_call>b`,
			want: []want{{format: FormatXML, problem: true}}, display: "ab"},
		{name: "prose after the tag", in: `I use <tool_call> tags.`,
			want: []want{{format: FormatXML, problem: true}}, display: "I use tags."},
		{name: "invalid JSON keeps the name and skips to the closing tag", in: `<tool_call>{"name": "write_file", "arguments": {"path": a.go, "content": "x"}}</tool_call>after`,
			want: []want{{format: FormatXML, name: "write_file", problem: true}}, display: "after"},
		{name: "invalid JSON with no closing tag swallows the rest", in: `<tool_call>{"name": "read_file", "arguments": {"path": a}} more`,
			want: []want{{format: FormatXML, name: "read_file", problem: true}}},
		// A missing comma after a string makes the lenient-quote rule read on
		// past the call; the strict retry reports the call and keeps the prose.
		{name: "missing comma does not swallow the response", in: "<tool_call>{\"name\": \"write_file\", \"arguments\": {\"path\": \"a.txt\" \"content\": \"x\"}}</tool_call>\nI wrote \"it\", done.",
			want: []want{{format: FormatXML, name: "write_file", problem: true}}, display: "\nI wrote \"it\", done."},
		{name: "missing comma, then the end of the text", in: `<tool_call>{"name": "write_file", "arguments": {"path": "a.txt" "content": "x`,
			want: []want{{format: FormatXML, name: "write_file", problem: true}}},
		{name: "missing comma in function tags", in: `<function=write_file>{"path": "a" "content": "x"}</function> after "this", ok`,
			want: []want{{format: FormatFunction, name: "write_file", problem: true}}, display: ` after "this", ok`},
		{name: "missing comma after bracket marker", in: `[TOOL_CALLS]write_file[ARGS]{"path": "a" "content": "x"} then "quoted", ok`,
			want: []want{{format: FormatBracket, name: "write_file", problem: true}}, display: `"content": "x"} then "quoted", ok`},
	})
}

func TestExtractTruncated(t *testing.T) {
	runExtractCases(t, []extractCase{
		{name: "write_file cut in content", in: "Writing it.\n<tool_call>{\"name\": \"write_file\", \"arguments\": {\"path\": \"main.go\", \"content\": \"package main\\n\\nfunc main() {\\n\\tfmt.Println(\\\"hi",
			want:    []want{{format: FormatXML, name: "write_file", args: `{"path":"main.go","content":"package main\n\nfunc main() {\n\tfmt.Println(\"hi"}`, repaired: true}},
			display: "Writing it.\n"},
		{name: "cut after a key", in: `<tool_call>{"name": "write_file", "arguments": {"path": "a", "content"`,
			want: []want{{format: FormatXML, name: "write_file", args: `{"path":"a"}`, repaired: true}}},
		{name: "cut with a trailing comma", in: `<tool_call>{"name": "write_file", "arguments": {"path": "a",`,
			want: []want{{format: FormatXML, name: "write_file", args: `{"path":"a"}`, repaired: true}}},
		{name: "cut before the arguments", in: `<tool_call>{"name": "list_files", `,
			want: []want{{format: FormatXML, name: "list_files", args: `{}`, repaired: true}}},
		{name: "cut in the name", in: `<tool_call>{"name": "read_fi`,
			want: []want{{format: FormatXML, name: "read_fi", args: `{}`, repaired: true}}},
		{name: "cut right after the tag", in: "ok <tool_call>\n",
			want: []want{{format: FormatXML, repaired: true, problem: true}}, display: "ok "},
		{name: "cut in an escape", in: `<tool_call>{"name": "write_file", "arguments": {"path": "a", "content": "x\u00`,
			want: []want{{format: FormatXML, name: "write_file", args: `{"path":"a","content":"x"}`, repaired: true}}},
		{name: "cut in string arguments", in: `<tool_call>{"name": "write_file", "arguments": "{\"path\": \"a\", \"content\": \"abc`,
			want: []want{{format: FormatXML, name: "write_file", args: `{"path":"a","content":"abc"}`, repaired: true}}},
		{name: "cut in a second call", in: `<tool_call>{"name": "read_file", "arguments": {"path": "a"}}</tool_call><tool_call>{"name": "write_file", "arguments": {"path": "b", "content": "x`,
			want: []want{
				{format: FormatXML, name: "read_file", args: `{"path":"a"}`},
				{format: FormatXML, name: "write_file", args: `{"path":"b","content":"x"}`, repaired: true},
			}},
	})
}

func TestExtractFunctionTags(t *testing.T) {
	runExtractCases(t, []extractCase{
		{name: "qwen3-coder parameters", in: "<tool_call>\n<function=write_file>\n<parameter=path>\nsrc/a.html\n</parameter>\n<parameter=content>\n<div>a < b && c > d</div>\n\n</parameter>\n</function>\n</tool_call>",
			want: []want{{format: FormatXML, name: "write_file", args: `{"path":"src/a.html","content":"<div>a < b && c > d</div>\n"}`}}},
		{name: "llama style JSON body", in: `<function=read_file>{"path": "a"}</function>`,
			want: []want{{format: FormatFunction, name: "read_file", args: `{"path":"a"}`}}},
		{name: "inside tool_call tags with JSON body", in: `<tool_call><function=read_file>{"path": "a"}</function></tool_call>`,
			want: []want{{format: FormatXML, name: "read_file", args: `{"path":"a"}`}}},
		{name: "parameters are strings", in: "<function=read_file><parameter=path>a</parameter><parameter=startLine>10</parameter></function>",
			want: []want{{format: FormatFunction, name: "read_file", args: `{"path":"a","startLine":"10"}`}}},
		{name: "missing parameter close", in: "<function=read_file><parameter=path>a<parameter=startLine>10</function> done",
			want:    []want{{format: FormatFunction, name: "read_file", args: `{"path":"a","startLine":"10"}`}},
			display: " done"},
		{name: "no arguments", in: "<function=get_diagnostics></function>",
			want: []want{{format: FormatFunction, name: "get_diagnostics", args: `{}`}}},
		{name: "cut in a parameter", in: "<tool_call><function=write_file><parameter=path>a</parameter><parameter=content>\nline 1\nli",
			want: []want{{format: FormatXML, name: "write_file", args: `{"path":"a","content":"line 1\nli"}`, repaired: true}}},
		{name: "cut in the name", in: "<function=write_fi",
			want: []want{{format: FormatFunction, name: "write_fi", args: `{}`, repaired: true}}},
		{name: "malformed tag", in: "<function=read\nfile>x",
			want: []want{{format: FormatFunction, name: "", args: `{}`, problem: true}}, display: "\nfile>x"},
	})
}

func TestExtractBracket(t *testing.T) {
	runExtractCases(t, []extractCase{
		{name: "pre-v11 array with id", in: `[TOOL_CALLS] [{"name": "read_file", "arguments": {"path": "a"}, "id": "abc123def"}]`,
			want: []want{{format: FormatBracket, name: "read_file", args: `{"path":"a"}`, id: "abc123def"}}},
		{name: "pre-v11 several calls, no space", in: `[TOOL_CALLS][{"name": "read_file", "arguments": {"path": "a"}}, {"name": "read_file", "arguments": {"path": "b"}}]`,
			want: []want{
				{format: FormatBracket, name: "read_file", args: `{"path":"a"}`},
				{format: FormatBracket, name: "read_file", args: `{"path":"b"}`},
			}},
		{name: "pre-v11 string arguments", in: `[TOOL_CALLS] [{"name": "read_file", "arguments": "{\"path\": \"a\"}"}]`,
			want: []want{{format: FormatBracket, name: "read_file", args: `{"path":"a"}`}}},
		{name: "single object", in: `[TOOL_CALLS] {"name": "read_file", "arguments": {"path": "a"}}`,
			want: []want{{format: FormatBracket, name: "read_file", args: `{"path":"a"}`}}},
		{name: "v11 name and ARGS", in: `Let me check.[TOOL_CALLS]read_file[ARGS]{"path": "a"}`,
			want:    []want{{format: FormatBracket, name: "read_file", args: `{"path":"a"}`}},
			display: "Let me check."},
		{name: "v11 several calls", in: `[TOOL_CALLS]read_file[ARGS]{"path": "a"}[TOOL_CALLS]list_files[ARGS]{}`,
			want: []want{
				{format: FormatBracket, name: "read_file", args: `{"path":"a"}`},
				{format: FormatBracket, name: "list_files", args: `{}`},
			}},
		{name: "call id", in: `[TOOL_CALLS]read_file[CALL_ID]a1B2c3D4e[ARGS]{"path": "a"}`,
			want: []want{{format: FormatBracket, name: "read_file", args: `{"path":"a"}`, id: "a1B2c3D4e"}}},
		{name: "ARGS token dropped", in: `[TOOL_CALLS]read_file{"path": "a"}`,
			want: []want{{format: FormatBracket, name: "read_file", args: `{"path":"a"}`}}},
		{name: "MCP style name", in: `[TOOL_CALLS]github.get_issue[ARGS]{"n": 1}`,
			want: []want{{format: FormatBracket, name: "github.get_issue", args: `{"n":1}`}}},
		{name: "prose after the call", in: "[TOOL_CALLS]read_file[ARGS]{\"path\": \"a\"}\n\nI will read it.",
			want:    []want{{format: FormatBracket, name: "read_file", args: `{"path":"a"}`}},
			display: "\n\nI will read it."},
		{name: "braces in strings", in: `[TOOL_CALLS]write_file[ARGS]{"path": "a", "content": "} [TOOL_CALLS] {"}`,
			want: []want{{format: FormatBracket, name: "write_file", args: `{"path":"a","content":"} [TOOL_CALLS] {"}`}}},
		{name: "cut in the arguments", in: `[TOOL_CALLS]write_file[ARGS]{"path": "a", "content": "par`,
			want: []want{{format: FormatBracket, name: "write_file", args: `{"path":"a","content":"par"}`, repaired: true}}},
		{name: "cut after the name", in: `[TOOL_CALLS]get_diagnostics`,
			want: []want{{format: FormatBracket, name: "get_diagnostics", args: `{}`, repaired: true}}},
		{name: "cut in the array", in: `[TOOL_CALLS] [{"name": "read_file", "arguments": {"path": "a"}}, {"name": "read_`,
			want: []want{
				{format: FormatBracket, name: "read_file", args: `{"path":"a"}`, repaired: true},
				{format: FormatBracket, name: "read_", args: `{}`, repaired: true},
			}},
		{name: "marker alone", in: `text [TOOL_CALLS]`, display: "text "},
		{name: "marker then prose on the next line", in: "[TOOL_CALLS]\nI will read it.", display: "\nI will read it."},
		{name: "name without arguments", in: `[TOOL_CALLS]read_file and then`,
			want:    []want{{format: FormatBracket, name: "read_file", problem: true}},
			display: "and then"},
		{name: "invalid JSON", in: `[TOOL_CALLS]read_file[ARGS]{"path": a} rest`,
			want:    []want{{format: FormatBracket, name: "read_file", problem: true}},
			display: "a} rest"},
	})
}

func TestExtractBare(t *testing.T) {
	runExtractCases(t, []extractCase{
		{name: "bare call", in: `{"name": "read_file", "arguments": {"path": "a"}}`, opts: knownOpts,
			want: []want{{format: FormatBare, name: "read_file", args: `{"path":"a"}`}}},
		{name: "bare calls in prose", in: "First {\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}} then {\"tool\": \"list_files\", \"args\": {\"path\": \".\"}} done.", opts: knownOpts,
			want: []want{
				{format: FormatBare, name: "read_file", args: `{"path":"a"}`},
				{format: FormatBare, name: "list_files", args: `{"path":"."}`},
			}, display: "First  then  done."},
		{name: "bare top-level arguments", in: `{"name": "read_file", "path": "a"}`, opts: knownOpts,
			want: []want{{format: FormatBare, name: "read_file", args: `{"path":"a"}`}}},
		{name: "bare array of calls", in: `[{"name": "read_file", "arguments": {"path": "a"}}, {"name": "read_file", "arguments": {"path": "b"}}]`, opts: knownOpts,
			want: []want{
				{format: FormatBare, name: "read_file", args: `{"path":"a"}`},
				{format: FormatBare, name: "read_file", args: `{"path":"b"}`},
			}},
		{name: "unknown name is prose", in: `Use {"name": "fetch_url", "arguments": {"url": "x"}} for that.`, opts: knownOpts,
			display: `Use {"name": "fetch_url", "arguments": {"url": "x"}} for that.`},
		{name: "no known tools, no bare calls", in: `{"name": "read_file", "arguments": {"path": "a"}}`,
			display: `{"name": "read_file", "arguments": {"path": "a"}}`},
		{name: "array with one unknown call is prose", in: `[{"name": "read_file"}, {"name": "nope"}]`, opts: knownOpts,
			display: `[{"name": "read_file"}, {"name": "nope"}]`},
		{name: "markdown links and braces stay", in: "See [docs](http://x) and {curly} and [ ] and {\"a\": 1}.", opts: knownOpts,
			display: "See [docs](http://x) and {curly} and [ ] and {\"a\": 1}."},
		{name: "known call nested in other JSON is not a call", in: `{"example": {"name": "read_file", "arguments": {"path": "a"}}}`, opts: knownOpts,
			display: `{"example": {"name": "read_file", "arguments": {"path": "a"}}}`},
		{name: "tagged calls win", in: `{"name": "read_file", "arguments": {"path": "a"}} <tool_call>{"name": "list_files", "arguments": {}}</tool_call>`, opts: knownOpts,
			want:    []want{{format: FormatXML, name: "list_files", args: `{}`}},
			display: " "},
		{name: "cut off bare call", in: `Now: {"name": "write_file", "arguments": {"path": "a", "content": "lin`, opts: knownOpts,
			want:    []want{{format: FormatBare, name: "write_file", args: `{"path":"a","content":"lin"}`, repaired: true}},
			display: "Now: "},
		{name: "cut off JSON that is not a call", in: `Config: {"name": "pkg", "version": "1.`, opts: knownOpts,
			display: `Config: {"name": "pkg", "version": "1.`},
		{name: "brace after a failed candidate", in: `{{"name": "read_file", "arguments": {}}}`, opts: knownOpts,
			want:    []want{{format: FormatBare, name: "read_file", args: `{}`}},
			display: "{}"},
		{name: "tags are found inside JSON that is prose", in: `{"doc": "<tool_call>{\"name\": \"read_file\"}</tool_call>"} x`, opts: knownOpts,
			want:    []want{{format: FormatXML, problem: true}},
			display: `{"doc": ""} x`},
	})
}

func TestExtractFence(t *testing.T) {
	runExtractCases(t, []extractCase{
		{name: "json fence", in: "I'll read it:\n```json\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}}\n```\nWaiting.", opts: knownOpts,
			want:    []want{{format: FormatFence, name: "read_file", args: `{"path":"a"}`}},
			display: "I'll read it:\n\nWaiting."},
		{name: "fence without language", in: "```\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}}\n```", opts: knownOpts,
			want: []want{{format: FormatFence, name: "read_file", args: `{"path":"a"}`}}},
		{name: "two calls in one fence", in: "```json\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}}\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"b\"}}\n```", opts: knownOpts,
			want: []want{
				{format: FormatFence, name: "read_file", args: `{"path":"a"}`},
				{format: FormatFence, name: "read_file", args: `{"path":"b"}`},
			}},
		{name: "indented fence, closing on the same line", in: "  ```json\n  {\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}}```", opts: knownOpts,
			want:    []want{{format: FormatFence, name: "read_file", args: `{"path":"a"}`}},
			display: "  "},
		{name: "example JSON in a fence stays", in: "package.json:\n```json\n{\"name\": \"my-app\", \"version\": \"1.0.0\", \"dependencies\": {}}\n```\n", opts: knownOpts,
			display: "package.json:\n```json\n{\"name\": \"my-app\", \"version\": \"1.0.0\", \"dependencies\": {}}\n```\n"},
		{name: "JSON without a name in a fence stays", in: "```json\n{\"a\": [1, 2, {\"b\": null}]}\n```", opts: knownOpts,
			display: "```json\n{\"a\": [1, 2, {\"b\": null}]}\n```"},
		{name: "call and other text in a fence stays", in: "```json\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}}\n// then this\n```", opts: knownOpts,
			display: "```json\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}}\n// then this\n```"},
		{name: "known call shown in a python fence stays", in: "```python\nx = {\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}}\n{\"name\": \"read_file\"}\n```", opts: knownOpts,
			display: "```python\nx = {\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}}\n{\"name\": \"read_file\"}\n```"},
		{name: "go code with braces stays", in: "```go\nfunc main() {\n\tif x { y() }\n}\n```\nand {\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}}", opts: knownOpts,
			want:    []want{{format: FormatBare, name: "read_file", args: `{"path":"a"}`}},
			display: "```go\nfunc main() {\n\tif x { y() }\n}\n```\nand "},
		{name: "cut off fence call", in: "```json\n{\"name\": \"write_file\", \"arguments\": {\"path\": \"a\", \"content\": \"x", opts: knownOpts,
			want: []want{{format: FormatFence, name: "write_file", args: `{"path":"a","content":"x"}`, repaired: true}}},
		{name: "fence call without closing fence", in: "```json\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}}\n", opts: knownOpts,
			want: []want{{format: FormatFence, name: "read_file", args: `{"path":"a"}`}}},
		{name: "no known tools, fences stay", in: "```json\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}}\n```",
			display: "```json\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}}\n```"},
		{name: "inline backticks are prose", in: "use ``` inline and `{\"name\": \"read_file\"}`", opts: knownOpts,
			want:    []want{{format: FormatBare, name: "read_file", args: `{}`}},
			display: "use ``` inline and ``"},
		{name: "xml call inside a fence", in: "```xml\n<tool_call>{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}}</tool_call>\n```", opts: knownOpts,
			want:    []want{{format: FormatXML, name: "read_file", args: `{"path":"a"}`}},
			display: "```xml\n\n```"},
	})
}

func TestExtractNoCalls(t *testing.T) {
	texts := []string{
		"",
		"Plain prose with no calls at all.",
		"Compare a < b and b > c; see <b>bold</b> and <function> words.",
		"Markdown: [link](http://x), [ ] boxes, [x] done, arrays [1, 2, 3].",
		"An object {\"a\": 1} and a broken one {\"a\": and code { x }.",
		strings.Repeat("{[<`", 50),
	}
	for _, text := range texts {
		if calls := Extract(text, knownOpts); len(calls) != 0 {
			t.Errorf("Extract(%q) = %s, want no calls", text, dumpCalls(calls))
		}
		if got := Strip(text, knownOpts); got != text {
			t.Errorf("Strip(%q) = %q, want it unchanged", text, got)
		}
		checkStreaming(t, text, knownOpts)
	}
}
