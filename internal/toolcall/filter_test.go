package toolcall

import (
	"strings"
	"testing"
)

func TestFilterHoldsUndecidedText(t *testing.T) {
	tests := []struct {
		name   string
		deltas []string
		opts   Options
		want   []string // visible after each delta
		flush  string
	}{
		{name: "partial tool_call tag", deltas: []string{"Hello <tool_c", "all>{\"name\": \"read_file\"}</tool_call> bye"},
			want: []string{"Hello ", " bye"}},
		{name: "partial tag that is not one", deltas: []string{"a <too", "k> b"},
			want: []string{"a ", "<took> b"}},
		{name: "partial bracket marker", deltas: []string{"Text [TOOL_CA", "LLS]read_file[ARGS]{}"},
			want: []string{"Text ", ""}},
		{name: "partial task marker", deltas: []string{"Done [TASK", "_COMPLETE]"},
			want: []string{"Done ", ""}},
		{name: "partial task marker in lower case", deltas: []string{"Done [task_comp", "lete] ok"},
			want: []string{"Done ", " ok"}},
		{name: "bracket that is a link", deltas: []string{"see [", "docs](x)"},
			want: []string{"see ", "[docs](x)"}},
		{name: "fence start at line start", deltas: []string{"ok\n``", "`go\nx := 1\n```\n"},
			want: []string{"ok\n", "```go\nx := 1\n```\n"}},
		{name: "json fence is held until decided", opts: knownOpts, deltas: []string{"```json\n{\"na", "me\": \"my-app\", ", "\"version\": 1}\n```\n"},
			want: []string{"", "```json\n{\"name\": \"my-app\", ", "\"version\": 1}\n```\n"}},
		{name: "bare candidate is held until decided", opts: knownOpts, deltas: []string{"Run {\"name\": \"read_", "file\", \"arguments\": {}} now"},
			want: []string{"Run ", " now"}},
		{name: "bare candidate released at an unknown name", opts: knownOpts, deltas: []string{"Use {\"name\": \"pkg\"", ", \"v\": 1} now"},
			want: []string{"Use {\"name\": \"pkg\"", ", \"v\": 1} now"}},
		{name: "braces without known tools pass", deltas: []string{"Use {\"name\": \"read_", "file\"}"},
			want: []string{"Use {\"name\": \"read_", "file\"}"}},
		{name: "trailing partial at the end is released", deltas: []string{"a <tool"},
			want: []string{"a "}, flush: "<tool"},
		{name: "trailing task prefix at the end is dropped", deltas: []string{"finished [TASK_COMP"},
			want: []string{"finished "}, flush: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := NewFilter(tt.opts)
			for i, d := range tt.deltas {
				if got := f.Write(d); got != tt.want[i] {
					t.Fatalf("Write(%q) = %q, want %q", d, got, tt.want[i])
				}
			}
			if got := f.Flush(); got != tt.flush {
				t.Fatalf("Flush() = %q, want %q", got, tt.flush)
			}
		})
	}
}

// TestFilterNeverRetracts checks, byte by byte, that what the filter has
// shown is always a prefix of the final display: nothing shown is later
// found to be markup.
func TestFilterNeverRetracts(t *testing.T) {
	text := "Intro [x](y) a<b.\n<tool_call>{\"name\": \"write_file\", \"arguments\": {\"path\": \"a\", \"content\": " + jsonString(sourceFile) + "}}</tool_call>\n" +
		"```json\n{\"name\": \"pkg\"}\n```\n[TOOL_CALLS]read_file[ARGS]{\"path\": \"b\"} and {\"name\": \"list_files\"} [TASK_COMPLETE]"
	final := Strip(text, knownOpts)
	f := NewFilter(knownOpts)
	var shown strings.Builder
	for i := 0; i < len(text); i++ {
		shown.WriteString(f.Write(text[i : i+1]))
		if !strings.HasPrefix(final, shown.String()) {
			t.Fatalf("after %d bytes shown %q, which the final display %q does not start with", i+1, shown.String(), final)
		}
		if m := endsWithMarkerPrefix(shown.String()); m != "" {
			t.Fatalf("after %d bytes the shown text ends with %q, which may still become markup", i+1, m)
		}
	}
	shown.WriteString(f.Flush())
	if shown.String() != final {
		t.Fatalf("shown %q, want %q", shown.String(), final)
	}
}

// endsWithMarkerPrefix returns the proper prefix of a marker that s ends
// with, or "".
func endsWithMarkerPrefix(s string) string {
	for _, m := range []string{"<tool_call>", "</tool_call>", "[TOOL_CALLS]", "[TASK_COMPLETE]"} {
		for k := 1; k < len(m); k++ {
			if len(s) >= k && strings.EqualFold(s[len(s)-k:], m[:k]) {
				return s[len(s)-k:]
			}
		}
	}
	return ""
}

func TestFilterInCall(t *testing.T) {
	type step struct {
		delta  string
		inCall bool
		name   string
	}
	tests := []struct {
		name  string
		opts  Options
		steps []step
	}{
		{name: "xml", steps: []step{
			{"Reading ", false, ""},
			{"<tool_call>", true, ""},
			{`{"name": "read_file", `, true, "read_file"},
			{`"arguments": {"path": "a"}}`, true, "read_file"},
			{"</tool_call>", false, ""},
		}},
		{name: "bracket", steps: []step{
			{"[TOOL_CALLS]write_", true, ""},
			{"file[ARGS]{\"content\": \"x", true, "write_file"},
			{"\"} ok", false, ""},
		}},
		{name: "function", steps: []step{
			{"<function=read_file>", true, "read_file"},
			{"<parameter=path>a</parameter></function>", false, ""},
		}},
		{name: "bare known call", opts: knownOpts, steps: []step{
			{`{"name": `, false, ""},
			{`"write_file", "arguments": {"content": "x`, true, "write_file"},
			{`"}}`, false, ""},
		}},
		{name: "bare unknown", opts: knownOpts, steps: []step{
			{`{"name": "other", "x": {`, false, ""},
		}},
		{name: "fence", opts: knownOpts, steps: []step{
			{"```json\n", false, ""},
			{`{"name": "read_file", "arguments": {`, true, "read_file"},
			{"}}\n```", false, ""},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := NewFilter(tt.opts)
			for _, st := range tt.steps {
				f.Write(st.delta)
				if f.InCall() != st.inCall || f.PendingName() != st.name {
					t.Fatalf("after %q: InCall=%v PendingName=%q, want %v %q", st.delta, f.InCall(), f.PendingName(), st.inCall, st.name)
				}
			}
		})
	}
}

func TestFilterCallsWhileStreaming(t *testing.T) {
	f := NewFilter(knownOpts)
	f.Write(`{"name": "read_file", "arguments": {"path": "a"}} `)
	if c := f.Calls(); len(c) != 1 || c[0].Format != FormatBare {
		t.Fatalf("after a bare call: %s", dumpCalls(c))
	}
	f.Write(`<tool_call>{"name": "list_files", "arguments": {}}`)
	if c := f.Calls(); len(c) != 1 || c[0].Format != FormatBare {
		t.Fatalf("while a tagged call streams: %s", dumpCalls(c))
	}
	f.Write(`</tool_call>`)
	if c := f.Calls(); len(c) != 1 || c[0].Name != "list_files" {
		t.Fatalf("after a tagged call, want only it: %s", dumpCalls(c))
	}
	f.Flush()
	if got := f.Write(`<tool_call>{"name": "read_file"}</tool_call> more`); got != "" || len(f.Calls()) != 1 {
		t.Fatalf("Write after Flush returned %q and changed calls to %s", got, dumpCalls(f.Calls()))
	}
	if got := f.Flush(); got != "" {
		t.Fatalf("second Flush returned %q", got)
	}
}

func TestFilterTaskComplete(t *testing.T) {
	tests := []struct {
		name string
		text string
		want bool
	}{
		{"in prose", "All done. [TASK_COMPLETE]", true},
		{"any case", "done [Task_Complete]", true},
		{"split across a call", "[TASK<tool_call>{\"name\": \"x\"}</tool_call>_COMPLETE]", true},
		{"absent", "still working", false},
		{"only a prefix", "done [TASK_COMP", false},
		{"inside a tool call", `<tool_call>{"name": "write_file", "arguments": {"content": "say [TASK_COMPLETE]"}}</tool_call>`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, f := stream(tt.text, Options{}, []int{3})
			if f.TaskComplete() != tt.want {
				t.Fatalf("TaskComplete() = %v, want %v", f.TaskComplete(), tt.want)
			}
		})
	}
}

func TestStripTaskComplete(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"no signal", "no signal"},
		{"x [TASK_COMPLETE] y", "x  y"},
		{"[task_complete][Task_Complete]", ""},
		{"a[TASK", "a"},
		{"a [TASK_COMPLETE", "a "},
		{"a [", "a "},
		{"[TASK[TASK_COMPLETE]_COMPLETE]", ""},
		{"[TASK_COMPLETED] stays", "[TASK_COMPLETED] stays"},
		{"[TASK] and [TOOL", "[TASK] and [TOOL"},
		{"keep [link] and <b>", "keep [link] and <b>"},
	}
	for _, tt := range tests {
		if got := StripTaskComplete(tt.in); got != tt.want {
			t.Errorf("StripTaskComplete(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestHasTaskComplete(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"", false},
		{"[TASK_COMPLETE]", true},
		{"done [task_complete]", true},
		{"[[TASK_COMPLETE", false},
		{"[TASK_COMPLET]", false},
		{"text [ [x] [TaSk_CoMpLeTe] more", true},
	}
	for _, tt := range tests {
		if got := HasTaskComplete(tt.in); got != tt.want {
			t.Errorf("HasTaskComplete(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestStripJoinedMarkers(t *testing.T) {
	call := `<tool_call>{"name": "read_file"}</tool_call>`
	tests := []struct{ in, want string }{
		{"<tool" + call + "_call>x", "x"},
		{"[TOOL" + call + "_CALLS]x", "x"},
		{"</tool" + call + "_call>x", "x"},
		{"[TASK" + call + "_COMPLETE]x", "x"},
		{"<tool<tool" + call + "_call>_call>x", "x"},
		{"<to" + call + "ol>x", "<tool>x"},
	}
	for _, tt := range tests {
		if got := Strip(tt.in, Options{}); got != tt.want {
			t.Errorf("Strip(%q) = %q, want %q", tt.in, got, tt.want)
		}
		checkStreaming(t, tt.in, Options{})
	}
}

// TestFilterLongStream streams a response long enough for the filter to
// drop text it no longer needs, and checks that display, calls and their
// offsets in the whole text are unaffected.
func TestFilterLongStream(t *testing.T) {
	text := benchResponse(300_000) + "\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"x\"}}\n```json\n{\"name\": \"pkg\"}\n```\n" +
		strings.Repeat("prose [link](u) {x} <b> ", 400) + "<tool_call>{\"name\": \"write_file\", \"arguments\": {\"path\": \"end\", \"content\": \"cut"
	calls := Extract(text, knownOpts)
	if len(calls) < 3 {
		t.Fatalf("want several calls in the long text, got %d", len(calls))
	}
	prefix := map[Format]string{FormatXML: "<tool_call>", FormatBracket: "[TOOL_CALLS]"}
	for _, c := range calls {
		if !strings.HasPrefix(text[c.Start:c.End], prefix[c.Format]) {
			t.Fatalf("call %s: text at [%d, %d) is %.40q", c.Name, c.Start, c.End, text[c.Start:])
		}
	}
	if last := calls[len(calls)-1]; last.End != len(text) || !last.Repaired {
		t.Fatalf("last call should be cut off at the end: %s", dumpCalls([]Call{last}))
	}
	checkStreaming(t, text, knownOpts)
	if _, _, f := stream(text, knownOpts, []int{5}); f.s.base == 0 || len(f.s.buf) > len(text)/10 {
		t.Fatalf("the filter kept %d of %d bytes (dropped %d): it should keep only what it may still need", len(f.s.buf), len(text), f.s.base)
	}
}
