package toolcall

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/olly-agent/olly/internal/llm"
)

// TestTemplateDialectGolden reads the hand-written chat templates under
// testdata/templates (one per family, in Ollama's template language, plus
// templates without tool markup) and compares the dialect recognised in
// each with testdata/templates/dialects.golden.
func TestTemplateDialectGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/templates/*.tmpl")
	if err != nil || len(files) == 0 {
		t.Fatalf("no templates: %v", err)
	}
	got := map[string]Format{}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		got[strings.TrimSuffix(filepath.Base(f), ".tmpl")] = TemplateDialect(string(raw))
	}
	out, _ := json.MarshalIndent(got, "", "  ")
	out = append(out, '\n')
	golden := "testdata/templates/dialects.golden"
	if *updateGolden {
		if err := os.WriteFile(golden, out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if string(want) != string(out) {
		t.Errorf("dialects differ from %s:\ngot  %s\nwant %s", golden, out, want)
	}
	// Every dialect the parsers know is recognised from some template.
	seen := map[Format]bool{}
	for _, d := range got {
		seen[d] = true
	}
	for _, d := range dialectMarkers {
		if !seen[d.format] {
			t.Errorf("no template under testdata/templates is recognised as %s", d.format)
		}
	}
	if !seen[""] {
		t.Error("no template under testdata/templates is without a dialect")
	}
}

func TestParseDialect(t *testing.T) {
	for _, d := range dialectMarkers {
		if f, ok := ParseDialect(string(d.format)); !ok || f != d.format {
			t.Errorf("ParseDialect(%q) = %q, %v", d.format, f, ok)
		}
	}
	for _, s := range []string{"fence", "XML", "qwen", " glm"} {
		if _, ok := ParseDialect(s); ok {
			t.Errorf("ParseDialect(%q) accepted it", s)
		}
	}
	if f, ok := ParseDialect(""); !ok || f != "" {
		t.Errorf(`ParseDialect("") = %q, %v`, f, ok)
	}
}

// FuzzTemplateDialect: any template gives a dialect ParseDialect accepts,
// and a dialect only when the template holds one of its markers.
func FuzzTemplateDialect(f *testing.F) {
	files, _ := filepath.Glob("testdata/templates/*.tmpl")
	for _, file := range files {
		if raw, err := os.ReadFile(file); err == nil {
			f.Add(string(raw))
		}
	}
	f.Add("<tool_call>\n<arg_key")
	f.Add("<｜tool▁sep")
	f.Fuzz(func(t *testing.T, tmpl string) {
		d := TemplateDialect(tmpl)
		if _, ok := ParseDialect(string(d)); !ok {
			t.Fatalf("TemplateDialect gave %q, which ParseDialect refuses", d)
		}
		if d == "" {
			return
		}
		found := false
		for _, m := range dialectMarkers {
			if m.format != d {
				continue
			}
			for _, s := range m.any {
				found = found || strings.Contains(tmpl, s)
			}
		}
		if !found {
			t.Fatalf("dialect %q without any of its markers in %q", d, tmpl)
		}
	})
}

// TestFormatCallRoundTrip: what FormatCall writes in each dialect (the
// example of the system prompt) is read back by Extract as the same call,
// streamed byte by byte too, and nothing of it is displayed.
func TestFormatCallRoundTrip(t *testing.T) {
	args := `{"path": "src/a \"b\".go", "limit": 20, "recursive": true, "tags": ["x", "y"], "opts": {"k": null}, "text": "line 1\nline 2\ttab ü"}`
	// The element-text dialects cannot tell 20 from "20".
	asText := `{"path": "src/a \"b\".go", "limit": "20", "recursive": "true", "tags": ["x", "y"], "opts": {"k": null}, "text": "line 1\nline 2\ttab ü"}`
	// Qwen3-Coder's <parameter=…> values stay strings, lists too (see
	// docs/toolcall.md).
	allText := `{"path": "src/a \"b\".go", "limit": "20", "recursive": "true", "tags": "[\"x\", \"y\"]", "opts": "{\"k\": null}", "text": "line 1\nline 2\ttab ü"}`
	for _, d := range append([]dialectMarker{{format: ""}}, dialectMarkers...) {
		t.Run(string(d.format), func(t *testing.T) {
			text, err := FormatCall(d.format, "read_file", []byte(args))
			if err != nil {
				t.Fatal(err)
			}
			w := want{format: d.format, name: "read_file", args: args}
			switch d.format {
			case "":
				w.format = FormatXML
			case FormatFunction:
				w.format = FormatXML // Qwen3-Coder's form sits in <tool_call> tags
				w.args = allText
			case FormatGLM, FormatInvoke:
				w.args = asText
			case FormatKimi:
				w.id = "functions.read_file:0"
			case FormatBracketArgs:
				w.format = FormatBracket // a dialect of the bracket format
			}
			in := "Let me look.\n" + text + "\nDone."
			checkCalls(t, in, Extract(in, knownOpts), []want{w})
			if got := Strip(in, knownOpts); got != "Let me look.\n\nDone." {
				t.Errorf("display %q", got)
			}
			f := NewFilter(knownOpts)
			var shown strings.Builder
			for i := range len(in) {
				shown.WriteString(f.Write(in[i : i+1]))
			}
			shown.WriteString(f.Flush())
			if shown.String() != "Let me look.\n\nDone." {
				t.Errorf("streamed display %q", shown.String())
			}
			checkCalls(t, in, f.Calls(), []want{w})
		})
	}
	if _, err := FormatCall(FormatXML, "read_file", []byte(`[1]`)); err == nil {
		t.Error("arguments that are not an object were accepted")
	}
	if _, err := FormatCall(FormatFence, "read_file", []byte(`{}`)); err == nil {
		t.Error("a format that is no dialect was accepted")
	}
}

// TestPreferredDialect: Options.Prefer changes the readings that are
// ambiguous, and only for the preferred dialect; other formats still read.
func TestPreferredDialect(t *testing.T) {
	preferBare := Options{Known: testKnown, Prefer: FormatBare}
	preferGLM := Options{Known: testKnown, Prefer: FormatGLM}
	mixed := "{\"name\": \"list_files\", \"arguments\": {}}\n<tool_call>{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}}</tool_call>"
	spaced := "<tool_call>read_file  \n<arg_key>path</arg_key>\n<arg_value>a.go</arg_value>\n</tool_call>"
	cut := "I'll read it.\n<tool_call>read_fi"
	runExtractCases(t, []extractCase{
		{name: "bare and tagged: tagged only by default", opts: knownOpts, in: mixed,
			want: []want{{format: FormatXML, name: "read_file", args: `{"path":"a"}`}}, display: "\n"},
		{name: "bare and tagged: both for a bare-JSON model", opts: preferBare, in: mixed,
			want:    []want{{format: FormatBare, name: "list_files", args: `{}`}, {format: FormatXML, name: "read_file", args: `{"path":"a"}`}},
			display: "\n"},
		{name: "a bare-JSON model that drifts to GLM", opts: preferBare, in: "<tool_call>read_file\n<arg_key>path</arg_key>\n<arg_value>b</arg_value>\n</tool_call>",
			want: []want{{format: FormatGLM, name: "read_file", args: `{"path":"b"}`}}},
		{name: "spaces after a GLM name: prose by default", opts: knownOpts, in: spaced,
			want: []want{{format: FormatXML, problem: true}}, display: "read_file  \n<arg_key>path</arg_key>\n<arg_value>a.go</arg_value>\n"},
		{name: "spaces after a GLM name: a call for a GLM model", opts: preferGLM, in: spaced,
			want: []want{{format: FormatGLM, name: "read_file", args: `{"path":"a.go"}`}}},
		{name: "a GLM name cut off: prose by default", opts: knownOpts, in: cut,
			want: []want{{format: FormatXML, problem: true}}, display: "I'll read it.\nread_fi"},
		{name: "a GLM name cut off: a cut-off call for a GLM model", opts: preferGLM, in: cut,
			want: []want{{format: FormatGLM, name: "read_fi", args: `{}`, repaired: true}}, display: "I'll read it.\n"},
		{name: "a GLM model that drifts to JSON in tags", opts: preferGLM, in: `<tool_call>{"name": "read_file", "arguments": {"path": "c"}}</tool_call>`,
			want: []want{{format: FormatXML, name: "read_file", args: `{"path":"c"}`}}},
	})
	preferPy := Options{Known: testKnown, Prefer: FormatToolCode}
	pyCall := "Reading it.\n```python\nprint(default_api.read_file(path=\"a.go\"))\nlist_files(path=\".\")\n```\nDone."
	shown := "Here is how:\n```python\nimport os\nprint(os.listdir(\".\"))\n```\n"
	unknown := "```py\nrm_rf(path=\"/\")\n```"
	runExtractCases(t, []extractCase{
		{name: "a python fence of calls: prose by default", opts: knownOpts, in: pyCall, display: pyCall},
		{name: "a python fence of calls: calls for a tool_code model", opts: preferPy, in: pyCall,
			want:    []want{{format: FormatToolCode, name: "read_file", args: `{"path":"a.go"}`}, {format: FormatToolCode, name: "list_files", args: `{"path":"."}`}},
			display: "Reading it.\n\nDone."},
		{name: "python the model shows stays", opts: preferPy, in: shown, display: shown},
		{name: "a call of an unknown tool stays", opts: preferPy, in: unknown, display: unknown},
		{name: "a known call then code stays", opts: preferPy, in: "```python\nread_file(path=\"a\")\nx = 1\n```", display: "```python\nread_file(path=\"a\")\nx = 1\n```"},
		{name: "cut off inside the fence", opts: preferPy, in: "```python\nread_file(path=\"a",
			want: []want{{format: FormatToolCode, name: "read_file", problem: true, repaired: true}}},
	})
	if c := Extract(cut, preferGLM); len(c) != 1 || !c[0].Incomplete {
		t.Errorf("the cut-off GLM call is not Incomplete: %s", dumpCalls(c))
	}
}

// TestParamTypes: with the tools' schemas, element-text values are read as
// the parameter's type; without, as before.
func TestParamTypes(t *testing.T) {
	params := ParamTypes([]llm.Tool{
		{Name: "write_file", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"},"append":{"type":["boolean","null"]}}}`)},
		{Name: "read_file", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"limit":{"type":"integer"},"ranges":{"type":"array"},"x":{}}}`)},
		{Name: "broken", Parameters: json.RawMessage(`[`)},
	})
	if params["write_file"]["append"] != "boolean" || params["read_file"]["limit"] != "integer" || params["read_file"]["x"] != "" || params["broken"] != nil {
		t.Fatalf("ParamTypes = %v", params)
	}
	typed := Options{Known: testKnown, Params: params}
	pkg := "{\n  \"name\": \"x\"\n}"
	glmWrite := "<tool_call>write_file\n<arg_key>path</arg_key>\n<arg_value>package.json</arg_value>\n<arg_key>content</arg_key>\n<arg_value>" + pkg + "</arg_value>\n<arg_key>append</arg_key>\n<arg_value>false</arg_value>\n</tool_call>"
	invokeRead := "<invoke name=\"read_file\">\n<parameter name=\"path\">a.go</parameter>\n<parameter name=\"limit\">20</parameter>\n<parameter name=\"ranges\">[1, 2]</parameter>\n</invoke>"
	qwenRead := "<tool_call>\n<function=read_file>\n<parameter=limit>\n20\n</parameter>\n<parameter=ranges>\n[1, 2]\n</parameter>\n<parameter=path>\n[draft].md\n</parameter>\n</function>\n</tool_call>"
	runExtractCases(t, []extractCase{
		{name: "glm, untyped: JSON content becomes an object", opts: knownOpts, in: glmWrite,
			want: []want{{format: FormatGLM, name: "write_file", args: `{"path":"package.json","content":{"name":"x"},"append":"false"}`}}},
		{name: "glm, typed: the content keeps its text, the boolean is one", opts: typed, in: glmWrite,
			want: []want{{format: FormatGLM, name: "write_file", args: `{"path":"package.json","content":` + jsonString(pkg) + `,"append":false}`}}},
		{name: "invoke, typed", opts: typed, in: invokeRead,
			want: []want{{format: FormatInvoke, name: "read_file", args: `{"path":"a.go","limit":20,"ranges":[1,2]}`}}},
		{name: "qwen3-coder, untyped: strings", opts: knownOpts, in: qwenRead,
			want: []want{{format: FormatXML, name: "read_file", args: `{"limit":"20","ranges":"[1, 2]","path":"[draft].md"}`}}},
		{name: "qwen3-coder, typed", opts: typed, in: qwenRead,
			want: []want{{format: FormatXML, name: "read_file", args: `{"limit":20,"ranges":[1,2],"path":"[draft].md"}`}}},
		{name: "a value not of its type stays a string", opts: typed, in: "<tool_call>read_file\n<arg_key>limit</arg_key>\n<arg_value>all</arg_value>\n</tool_call>",
			want: []want{{format: FormatGLM, name: "read_file", args: `{"limit":"all"}`}}},
	})
}
