package toolcall_test

import (
	"fmt"
	"strings"

	"github.com/olly-agent/olly/internal/toolcall"
)

func ExampleExtract() {
	text := "I'll read the file first.\n" +
		`<tool_call>{"name": "read_file", "arguments": {"path": "main.go"}}</tool_call>`
	for _, c := range toolcall.Extract(text, toolcall.Options{}) {
		fmt.Println(c.Format, c.Name, string(c.Arguments))
	}
	// Output: xml read_file {"path":"main.go"}
}

func ExampleExtract_truncated() {
	// The model ran out of tokens in the middle of the file's content.
	text := `<tool_call>{"name": "write_file", "arguments": {"path": "a.go", "content": "package main\n\nfunc mai`
	c := toolcall.Extract(text, toolcall.Options{})[0]
	fmt.Println(c.Name, c.Repaired, string(c.Arguments))
	// Output: write_file true {"path":"a.go","content":"package main\n\nfunc mai"}
}

func ExampleFilter() {
	opts := toolcall.Options{Known: map[string]bool{"read_file": true}}
	f := toolcall.NewFilter(opts)
	var shown strings.Builder
	for _, delta := range []string{"Let me ", "check.\n<tool", "_call>{\"name\": \"read", "_file\", \"arguments\": {\"path\": \"a\"}}", "</tool_call>\n[TASK_", "COMPLETE]"} {
		shown.WriteString(f.Write(delta))
	}
	shown.WriteString(f.Flush())
	fmt.Printf("%q\n", shown.String())
	fmt.Println(f.Calls()[0].Name, f.TaskComplete())
	// Output:
	// "Let me check.\n\n"
	// read_file true
}
