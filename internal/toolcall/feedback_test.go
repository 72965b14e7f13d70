package toolcall

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// readFileSchema is the schema the feedback tests give read_file.
const readFileSchema = `{"type": "object", "properties": {"path": {"type": "string"}, "limit": {"type": ["integer", "null"]}}, "required": ["path"]}`

// feedbackCase is a malformed call a model writes in its dialect.
type feedbackCase struct {
	name    string
	dialect Format
	in      string
}

var feedbackCases = []feedbackCase{
	{"deepseek_bad_json", FormatDeepSeek, "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>read_file<｜tool▁sep｜>{\"path\": a.go}<｜tool▁call▁end｜><｜tool▁calls▁end｜>"},
	{"kimi_bad_json", FormatKimi, "<|tool_calls_section_begin|><|tool_call_begin|>functions.read_file:0<|tool_call_argument_begin|>{\"path\": \"a.go\",, }<|tool_call_end|><|tool_calls_section_end|>"},
	{"glm_missing_arg_value", FormatGLM, "<tool_call>read_file\n<arg_key>path</arg_key>\na.go\n</tool_call>"},
	{"glm_drifts_to_bad_json", FormatGLM, "<tool_call>{\"name\": \"read_file\", \"arguments\": {\"path\": a.go}}</tool_call>"},
	{"invoke_malformed_parameter", FormatInvoke, "<function_calls>\n<invoke name=\"read_file\">\n<parameter path>a.go</parameter>\n</invoke>\n</function_calls>"},
	{"function_not_parameters", FormatFunction, "<tool_call>\n<function=read_file>\n[\"a.go\"]\n</function>\n</tool_call>"},
	{"bracket_no_arguments", FormatBracket, "[TOOL_CALLS]read_file[ARGS]\"a.go\""},
	{"bracket_args_bad_json", FormatBracketArgs, "[TOOL_CALLS]read_file[ARGS]{'path': a.go}"},
	{"tool_code_positional", FormatToolCode, "```tool_code\nread_file(\"a.go\")\n```"},
	{"bare_no_name", FormatBare, "<tool_call>{\"arguments\": {\"path\": \"a.go\"}}</tool_call>"},
	{"unknown_tool", FormatGLM, "<tool_call>{\"name\": \"cat_file\", \"arguments\": {\"path\": a.go}}</tool_call>"},
}

// TestFeedbackGolden: a malformed call in each dialect gets a message that
// says what was wrong and shows the call in that dialect
// (testdata/feedback/*.golden; -update rewrites them).
func TestFeedbackGolden(t *testing.T) {
	seen := map[Format]bool{}
	for _, fc := range feedbackCases {
		t.Run(fc.name, func(t *testing.T) {
			calls := Extract(fc.in, Options{Known: testKnown, Prefer: fc.dialect})
			if len(calls) != 1 || calls[0].Problem == "" {
				t.Fatalf("want one call with a Problem, got %s", dumpCalls(calls))
			}
			name, args := "read_file", ExampleArgs([]byte(readFileSchema))
			if calls[0].Name != "read_file" {
				name, args = "read_file", []byte(`{"path": "src/main.go"}`)
			}
			got := Feedback(fc.dialect, calls[0], name, args)
			example, err := FormatCall(fc.dialect, name, args)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(got, example) || !strings.Contains(got, clip(reason(calls[0].Problem), maxReason)) {
				t.Errorf("the feedback lacks the problem or the example:\n%s", got)
			}
			for _, h := range []string{hintRewrite, hintNoName, hintToolCode, hintBracketArgs, `{"name": "tool_name"`} {
				if strings.Contains(got, h) {
					t.Errorf("the feedback shows olly's <tool_call> JSON form (%q):\n%s", h, got)
				}
			}
			checkGolden(t, filepath.Join("testdata", "feedback", fc.name+".golden"), got)
			seen[fc.dialect] = true
		})
	}
	for _, d := range dialectMarkers {
		if d.format != FormatXML && !seen[d.format] {
			t.Errorf("no feedback case for the dialect %s", d.format)
		}
	}
}

// TestFeedbackNoDialect: without a dialect, or with olly's own <tool_call>
// JSON, the message is the Problem, byte for byte as it was before
// dialects had feedback.
func TestFeedbackNoDialect(t *testing.T) {
	for _, tc := range []struct{ in, problem string }{
		{"<tool_call>{\"name\": \"read_file\", \"arguments\": {\"path\": a.go}}</tool_call>",
			`the tool call is not valid JSON (unexpected "a.go" is not a JSON value); write the JSON object again, with quotes and backslashes inside strings escaped`},
		{"<tool_call>{\"arguments\": {\"path\": \"a.go\"}}</tool_call>",
			`the tool call has no tool name: write {"name": "tool_name", "arguments": {…}}`},
		{"[TOOL_CALLS]read_file[ARGS]\"a.go\"",
			`expected the arguments as a JSON object after the tool name: [TOOL_CALLS]name[ARGS]{…}`},
		{"```tool_code\nread_file(\"a.go\")\n```",
			`the tool_code block could not be read as a call: arguments must be given by name (path="a.go"); write one call per line as tool_name(arg="value", other=1)`},
		{"<tool_call>\n<|tool|>\n</tool_call>",
			`expected a JSON object such as {"name": "tool_name", "arguments": {…}} after <tool_call>`},
	} {
		calls := Extract(tc.in, knownOpts)
		if len(calls) != 1 || calls[0].Problem != tc.problem {
			t.Errorf("%q: got %s\nwant the problem %q", tc.in, dumpCalls(calls), tc.problem)
			continue
		}
		for _, d := range []Format{"", FormatXML} {
			if got := Feedback(d, calls[0], "read_file", []byte(`{"path": "…"}`)); got != tc.problem {
				t.Errorf("%q, dialect %q: feedback %q, want the problem unchanged", tc.in, d, got)
			}
		}
	}
}

// TestFeedbackBounded: a huge malformed call gives a short Problem and a
// short feedback, in every dialect.
func TestFeedbackBounded(t *testing.T) {
	huge := strings.Repeat("x", 1<<20)
	for _, in := range []string{
		`<tool_call>{"name": "read_file", "arguments": {"path": ` + huge + `}}</tool_call>`,
		`<tool_call>{"name": "read_file", "arguments": {"path": "a", "limit": 1` + huge + `}}</tool_call>`,
		"```tool_code\n" + huge + "\n```",
		"```tool_code\nread_file(limit=1" + strings.Repeat("e", 1<<20) + ")\n```",
		"[TOOL_CALLS]read_file[ARGS]" + huge,
		"<tool_call>read_file\n<arg_key>path</arg_key>\n" + huge + "\n</tool_call>",
		`<tool_call>{"name": "` + huge + `", "arguments": {"path": a}}</tool_call>`,
	} {
		calls := Extract(in, Options{Known: testKnown, Prefer: FormatGLM})
		if len(calls) == 0 {
			t.Fatalf("no call in %.80q", in)
		}
		for _, c := range calls {
			if len(c.Problem) > 1024 || len(c.Name) > maxNameLen {
				t.Errorf("%.80q: a problem of %d bytes, a name of %d", in, len(c.Problem), len(c.Name))
			}
			for _, d := range append([]dialectMarker{{format: ""}}, dialectMarkers...) {
				if got := Feedback(d.format, c, "read_file", ExampleArgs([]byte(readFileSchema))); len(got) > 2048 {
					t.Errorf("%.80q, dialect %q: feedback of %d bytes", in, d.format, len(got))
				}
			}
		}
	}
	// An example too large to show is shown without its arguments.
	c := Call{Problem: "the tool call has no tool name" + hintNoName}
	got := Feedback(FormatGLM, c, "write_file", []byte(`{"content": "`+huge+`"}`))
	if len(got) > 1024 || !strings.Contains(got, "<tool_call>write_file\n</tool_call>") {
		t.Errorf("feedback with a huge example: %.300q", got)
	}
}

func TestExampleArgs(t *testing.T) {
	for _, tc := range []struct{ schema, want string }{
		{readFileSchema, `{"path":"…"}`},
		{`{"properties": {"a": {"type": "integer"}, "b": {"type": "boolean"}, "c": {"type": "array"}, "d": {"type": "object"}, "e": {}}, "required": ["e", "d", "c", "b", "a", "a", "no such"]}`,
			`{"e":"…","d":{},"c":[],"b":true,"a":1}`},
		{`{"properties": {"x": {"type": "string"}}}`, `{}`},
		{`{"required": "x"}`, `{}`},
		{`[`, `{}`},
		{``, `{}`},
		{`{"required": ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"]}`, `{"a":"…","b":"…","c":"…","d":"…","e":"…","f":"…","g":"…","h":"…"}`},
		{`{"required": ["<x>", "ok"]}`, `{"ok":"…"}`},
	} {
		if got := string(ExampleArgs([]byte(tc.schema))); got != tc.want {
			t.Errorf("ExampleArgs(%s) = %s, want %s", tc.schema, got, tc.want)
		}
	}
}

func TestClip(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want string
	}{
		{"abc", 3, "abc"}, {"abcd", 3, "abc…"}, {"aü", 2, "a…"}, {"üü", 3, "ü…"}, {"", 0, ""},
	} {
		if got := clip(tc.s, tc.n); got != tc.want {
			t.Errorf("clip(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
}

// checkGolden compares got with the golden file, or writes it with -update.
func checkGolden(t *testing.T, path, got string) {
	t.Helper()
	if *updateGolden {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("differs from %s:\ngot:\n%s\nwant:\n%s", path, got, want)
	}
}

// FuzzFeedback: for any text read in any dialect, the feedback on each call
// that cannot run is short, shows the call in that dialect, and without a
// dialect is the Problem itself.
func FuzzFeedback(f *testing.F) {
	for _, fc := range feedbackCases {
		f.Add(fc.in, uint8(0))
	}
	f.Add("<tool_call>{\"name\": \""+strings.Repeat("é", 300)+"\", \"arguments\": {\"a\": 1"+strings.Repeat("x", 600)+"}}</tool_call>", uint8(3))
	dialects := append([]dialectMarker{{format: ""}}, dialectMarkers...)
	args := ExampleArgs([]byte(readFileSchema))
	f.Fuzz(func(t *testing.T, text string, pick uint8) {
		d := dialects[int(pick)%len(dialects)].format
		example, err := FormatCall(d, "read_file", args)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range Extract(text, Options{Known: testKnown, Prefer: d}) {
			if c.Problem == "" {
				continue
			}
			got := Feedback(d, c, "read_file", args)
			switch {
			case d == "" || d == FormatXML:
				if got != c.Problem {
					t.Fatalf("feedback %q, want the problem %q", got, c.Problem)
				}
			case len(got) > 1024 || !strings.Contains(got, "\n"+example+"\n"):
				t.Fatalf("dialect %s: feedback of %d bytes, or without the example:\n%.2000s", d, len(got), got)
			}
		}
	})
}
