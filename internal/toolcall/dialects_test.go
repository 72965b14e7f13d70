package toolcall

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestExtractTypographicQuotes(t *testing.T) {
	runExtractCases(t, []extractCase{
		{name: "bare with curly quotes", opts: knownOpts,
			in:   "Reading it.\n{\u201cname\u201d: \u201cread_file\u201d, \u201carguments\u201d: {\u201cpath\u201d: \u201ca.go\u201d}}",
			want: []want{{format: FormatBare, name: "read_file", args: `{"path":"a.go"}`}}, display: "Reading it.\n"},
		{name: "in tags, mixed quotes", in: "<tool_call>{\u201cname\u201d: \"read_file\", \"arguments\": {\u201dpath\u201d: \u201ca \"b\" \u2014 c.go\u201d}}</tool_call>",
			want: []want{{format: FormatXML, name: "read_file", args: `{"path":"a \"b\" \u2014 c.go"}`}}},
		{name: "curly quote inside an ASCII string is text", in: `<tool_call>{"name": "write_file", "arguments": {"path": "q.txt", "content": "` + "\u201chi\u201d" + `"}}</tool_call>`,
			want: []want{{format: FormatXML, name: "write_file", args: `{"path":"q.txt","content":"` + "\u201chi\u201d" + `"}`}}},
		{name: "prose with curly quotes stays", opts: knownOpts, in: "He said {\u201cnot a call\u201d: 1}.",
			display: "He said {\u201cnot a call\u201d: 1}."},
	})
}

func TestExtractToolCallsObject(t *testing.T) {
	openai := `{"tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\": \"a.go\"}"}}, {"id": "call_2", "type": "function", "function": {"name": "list_files", "arguments": {}}}]}`
	runExtractCases(t, []extractCase{
		{name: "bare", opts: knownOpts, in: "Let me look.\n" + openai,
			want: []want{
				{format: FormatBare, name: "read_file", args: `{"path":"a.go"}`, id: "call_1"},
				{format: FormatBare, name: "list_files", args: `{}`, id: "call_2"}},
			display: "Let me look.\n"},
		{name: "message object with content", opts: knownOpts, in: `{"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "read_file", "arguments": {"path": "b"}}}]}`,
			want: []want{{format: FormatBare, name: "read_file", args: `{"path":"b"}`}}},
		{name: "fenced", opts: knownOpts, in: "```json\n" + openai + "\n```\n",
			want: []want{
				{format: FormatFence, name: "read_file", args: `{"path":"a.go"}`, id: "call_1"},
				{format: FormatFence, name: "list_files", args: `{}`, id: "call_2"}},
			display: "\n"},
		{name: "in tags", in: "<tool_call>" + openai + "</tool_call>",
			want: []want{
				{format: FormatXML, name: "read_file", args: `{"path":"a.go"}`, id: "call_1"},
				{format: FormatXML, name: "list_files", args: `{}`, id: "call_2"}}},
		{name: "unknown tool stays prose", opts: knownOpts, in: `{"tool_calls": [{"function": {"name": "rm_rf", "arguments": {}}}]}`,
			display: `{"tool_calls": [{"function": {"name": "rm_rf", "arguments": {}}}]}`},
	})
}

var updateGolden = flag.Bool("update", false, "rewrite the golden files under testdata/dialects")

// goldenResult is what a dialect golden file holds: the calls Extract finds
// (offsets left out: they are checked by the streaming comparison) and the
// text Strip leaves for the person.
type goldenResult struct {
	Calls   []goldenCall `json:"calls"`
	Display string       `json:"display"`
}

type goldenCall struct {
	Name       string          `json:"name"`
	ID         string          `json:"id,omitempty"`
	Arguments  json.RawMessage `json:"arguments"`
	Format     Format          `json:"format"`
	Repaired   bool            `json:"repaired,omitempty"`
	Incomplete bool            `json:"incomplete,omitempty"`
	Problem    string          `json:"problem,omitempty"`
}

// TestDialectGolden reads every model-output sample under testdata/dialects,
// compares what olly extracts and displays with the golden file, and then
// streams the sample split at every byte offset: each split must give the
// same calls and the same display text as the whole.
func TestDialectGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/dialects/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no samples: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txt"), func(t *testing.T) {
			raw, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			text := string(raw)
			res := goldenResult{Display: Strip(text, knownOpts), Calls: []goldenCall{}}
			for _, c := range Extract(text, knownOpts) {
				res.Calls = append(res.Calls, goldenCall{Name: c.Name, ID: c.ID, Arguments: c.Arguments, Format: c.Format,
					Repaired: c.Repaired, Incomplete: c.Incomplete, Problem: c.Problem})
			}
			got, _ := json.MarshalIndent(res, "", "  ")
			got = append(got, '\n')
			golden := strings.TrimSuffix(file, ".txt") + ".golden"
			if *updateGolden {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s differs:\ngot:\n%s\nwant:\n%s", golden, got, want)
			}
			checkEverySplit(t, text)
		})
	}
}

// checkEverySplit streams text in two deltas split at every byte offset, and
// byte by byte, and compares with the one-shot result.
func checkEverySplit(t *testing.T, text string) {
	t.Helper()
	wantVisible, wantCalls := Strip(text, knownOpts), dumpCalls(Extract(text, knownOpts))
	for i := 0; i <= len(text); i++ {
		f := NewFilter(knownOpts)
		vis := f.Write(text[:i]) + f.Write(text[i:]) + f.Flush()
		if vis != wantVisible {
			t.Fatalf("split at %d: visible %q, want %q", i, vis, wantVisible)
		}
		if got := dumpCalls(f.Calls()); got != wantCalls {
			t.Fatalf("split at %d: calls%s\nwant%s", i, got, wantCalls)
		}
	}
	checkStreaming(t, text, knownOpts)
}

// No dialect's markup reaches the screen, whether or not it parses: the
// tokens that open and close sections are removed even when stray.
func TestDialectMarkupNeverShown(t *testing.T) {
	tokens := []string{"<tool_call>", "</tool_call>", "<function_calls>", "</function_calls>", "[TOOL_CALLS]"}
	for _, d := range sectionDialects {
		tokens = append(tokens, d.begin, d.end, d.callBegin, d.callEnd)
	}
	for _, tok := range tokens {
		for _, text := range []string{"before " + tok + " after", tok, "x" + tok + tok + "y"} {
			if got := Strip(text, knownOpts); strings.Contains(got, tok) {
				t.Errorf("Strip(%q) = %q: shows %s", text, got, tok)
			}
			checkEverySplit(t, text)
		}
	}
}

func TestPythonCalls(t *testing.T) {
	tests := []struct {
		name, src string
		want      []want
	}{
		{"keywords", `read_file(path="a.go", start_line=1)`, []want{{format: FormatToolCode, name: "read_file", args: `{"path":"a.go","start_line":1}`}}},
		{"literals", `f(a=True, b=None, c=[1, 2.5, 'x'], d={'k': (1, 2)}, e=-3, g=r'\d+', h="""two
lines""")`, []want{{format: FormatToolCode, name: "f", args: `{"a":true,"b":null,"c":[1,2.5,"x"],"d":{"k":[1,2]},"e":-3,"g":"\\d+","h":"two\nlines"}`}}},
		{"escapes", `f(s="a\tb\n\"q\"")`, []want{{format: FormatToolCode, name: "f", args: `{"s":"a\tb\n\"q\""}`}}},
		{"print and module", "print(default_api.list_files(path='.'))\n# done\nfunctions.find_files(pattern='*.go')",
			[]want{{format: FormatToolCode, name: "list_files", args: `{"path":"."}`}, {format: FormatToolCode, name: "find_files", args: `{"pattern":"*.go"}`}}},
		{"positional", `read_file("a.go")`, []want{{format: FormatToolCode, name: "read_file", problem: true}}},
		{"not a literal", `read_file(path=os.path.join("a", "b"))`, []want{{format: FormatToolCode, name: "read_file", problem: true}}},
		{"assignment", `x = read_file(path="a")`, []want{{format: FormatToolCode, name: "x", problem: true}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls := pyCalls([]byte(tt.src), false)
			for i := range calls {
				calls[i].Index = i
			}
			checkCalls(t, tt.src, calls, tt.want)
		})
	}
}

// The repair rule: a call that lacks only closers runs; one cut inside a
// value is marked Incomplete (and Repaired), and the agent does not run it.
func TestRepairRule(t *testing.T) {
	tests := []struct {
		name, in   string
		incomplete bool
	}{
		{"closers only", `<tool_call>{"name": "read_file", "arguments": {"path": "a"}`, false},
		{"closers only, array", `[TOOL_CALLS] [{"name": "read_file", "arguments": {"path": "a"}}, {"name": "list_files", "arguments": {}`, false},
		{"inside a string", `<tool_call>{"name": "write_file", "arguments": {"path": "a", "content": "ab`, true},
		{"inside a number", `<tool_call>{"name": "read_file", "arguments": {"path": "a", "start_line": 12`, true},
		{"after a colon", `<tool_call>{"name": "read_file", "arguments": {"path":`, true},
		{"inside a key", `<tool_call>{"name": "read_file", "arguments": {"pa`, true},
		{"qwen parameter value", "<tool_call><function=write_file><parameter=path>a.go</parameter><parameter=content>pack", true},
		{"qwen closers only", "<tool_call><function=read_file><parameter=path>a.go</parameter>", false},
		{"glm value", "<tool_call>write_file\n<arg_key>path</arg_key>\n<arg_value>a.g", true},
		{"glm closers only", "<tool_call>write_file\n<arg_key>path</arg_key>\n<arg_value>a.go</arg_value>\n", false},
		{"invoke value", "<invoke name=\"read_file\">\n<parameter name=\"path\">a.", true},
		{"deepseek closers only", "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>read_file<｜tool▁sep｜>{\"path\": \"a\"}", false},
		{"tool_code cut", "```tool_code\nread_file(path=\"a", true},
		{"tool_code closers only", "```tool_code\nread_file(path=\"a\")\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls := Extract(tt.in, knownOpts)
			if len(calls) == 0 {
				t.Fatalf("no call in %q", tt.in)
			}
			last := calls[len(calls)-1]
			// A missing closing tag alone need not even count as a repair;
			// what matters is whether the call may run.
			if last.Incomplete != tt.incomplete || (tt.incomplete && !last.Repaired) || (!tt.incomplete && last.Problem != "") {
				t.Errorf("last call = %s, want incomplete=%v", dumpCalls(calls[len(calls)-1:]), tt.incomplete)
			}
			for _, c := range calls[:len(calls)-1] {
				if c.Incomplete {
					t.Errorf("an earlier, complete call is marked incomplete: %s", dumpCalls([]Call{c}))
				}
			}
			checkEverySplit(t, tt.in)
		})
	}
}
