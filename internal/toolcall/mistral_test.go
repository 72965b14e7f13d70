package toolcall

import "testing"

// TestMistralForms: whichever [TOOL_CALLS] form a Mistral template shows
// (FormatBracket: a JSON array; FormatBracketArgs: name and [ARGS], v11+),
// both forms read, as the same calls, with nothing of the markup shown,
// however the text is streamed.
func TestMistralForms(t *testing.T) {
	array := `Reading both.[TOOL_CALLS][{"name": "read_file", "arguments": {"path": "a.go"}, "id": "abc123def"}, {"name": "list_files", "arguments": {}}]`
	v11 := `Reading both.[TOOL_CALLS]read_file[CALL_ID]abc123def[ARGS]{"path": "a.go"}[TOOL_CALLS]list_files[ARGS]{}`
	wants := []want{
		{format: FormatBracket, name: "read_file", args: `{"path":"a.go"}`, id: "abc123def"},
		{format: FormatBracket, name: "list_files", args: `{}`},
	}
	for _, d := range []Format{"", FormatBracket, FormatBracketArgs} {
		opts := Options{Known: testKnown, Prefer: d}
		for _, in := range []string{array, v11} {
			checkCalls(t, in, Extract(in, opts), wants)
			if got := Strip(in, opts); got != "Reading both." {
				t.Errorf("dialect %q: display %q", d, got)
			}
			checkStreaming(t, in, opts)
		}
	}
}

// TestMistralV11Example: the v11 dialect's example call is one marker, the
// name, [ARGS] and the JSON arguments, as such templates write calls.
func TestMistralV11Example(t *testing.T) {
	got, err := FormatCall(FormatBracketArgs, "read_file", []byte(`{"path": "src/main.go", "limit": 20}`))
	if want := `[TOOL_CALLS]read_file[ARGS]{"path": "src/main.go", "limit": 20}`; err != nil || got != want {
		t.Errorf("FormatCall = %q, %v; want %q", got, err, want)
	}
	if d := TemplateDialect(`{{ range .ToolCalls }}[TOOL_CALLS]{{ .Function.Name }}[CALL_ID]{{ .ID }}{{ end }}`); d != FormatBracketArgs {
		t.Errorf("a template with [CALL_ID] reads as %q", d)
	}
}
