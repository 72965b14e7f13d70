package agent

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/tools"
)

// Memory extraction: the notes come from what the turn records, never
// from the model's prose, so they are deterministic and claim nothing the
// tools did not report. The agent sees every event it emits (observe, one
// hook in run.emit); an assistant message's calls wait for their results,
// and each result updates the notes by tool.

// symbolTool reports the code-intelligence tools whose symbol argument is
// a function (or type) the model explored (the seed's
// autoExtractFunctionsExplored).
func symbolTool(name string) bool {
	switch name {
	case "find_definition", "find_references", "find_implementations", "get_call_hierarchy",
		"get_type_hierarchy", "get_hover_info", "find_symbol":
		return true
	}
	return false
}

// memoryObserver turns recorded events into notes.
type memoryObserver struct {
	mem *sessionMemory
	// pending are the calls of the last assistant message without their
	// result yet, by id.
	pending map[string]llm.ToolCall
}

// observe takes one recorded event.
func (o *memoryObserver) observe(p event.Payload) {
	switch p := p.(type) {
	case event.AssistantMessage:
		if len(p.ToolCalls) == 0 {
			return
		}
		o.pending = make(map[string]llm.ToolCall, len(p.ToolCalls))
		for _, c := range p.ToolCalls {
			o.pending[c.ID] = c
		}
	case event.ToolResult:
		c, ok := o.pending[p.ToolCallID]
		if !ok {
			return
		}
		delete(o.pending, p.ToolCallID)
		o.result(c, p)
	}
}

// result records what one call did.
func (o *memoryObserver) result(c llm.ToolCall, res event.ToolResult) {
	if notRun(res.Content) {
		return // duplicates, calls over the cap, canceled calls
	}
	// The arguments are parsed only for what needs them: most results
	// (a command that exited 0) add no entry.
	args := func() tools.Args {
		a, _ := tools.ParseArgs(c.Arguments) // bad arguments: no path, no symbol
		return a
	}
	if res.IsError {
		path, _ := args().Path()
		o.mem.addEntry(memError, errorNote(c.Name, path, res.Content))
		return
	}
	switch {
	case c.Name == "read_file" || c.Name == "write_file":
		kind := memFileRead
		if c.Name == "write_file" {
			kind = memFileWrite
		}
		if path, _ := args().Path(); path != "" {
			o.mem.addEntry(kind, path)
		}
	case c.Name == "run_terminal_command":
		if code, ok := failedExit(res.Content); ok {
			cmd, _ := args().String("command")
			o.mem.addEntry(memError, fmt.Sprintf("`%s` exited with code %s", oneLine(cmd, 80), code))
		}
	case symbolTool(c.Name):
		if name, _ := args().String("symbolName", "symbol", "symbol_name", "name", "query"); name != "" {
			o.mem.addEntry(memFunction, oneLine(name, 80))
		}
	}
}

// failedExit finds a failed command's exit status in run_terminal_command's
// result ("[exit code 2, 1.3s]", shell.Result.Text): the first
// "\n[exit code N," with N a number not 0, what the regular expression
// `\n\[exit code ([1-9][0-9]*),` matched first (FuzzFailedExit).
func failedExit(content string) (string, bool) {
	const mark = "\n[exit code "
	for i := strings.Index(content, mark); i >= 0; {
		rest := content[i+len(mark):]
		n := 0
		for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
			n++
		}
		if n > 0 && rest[0] != '0' && n < len(rest) && rest[n] == ',' {
			return rest[:n], true
		}
		j := strings.Index(rest, mark)
		if j < 0 {
			break
		}
		i += len(mark) + j
	}
	return "", false
}

// notRun reports a result that says the call was not run: it taught
// nothing about the workspace.
func notRun(content string) bool {
	return strings.HasPrefix(content, "[SYSTEM NOTE] Not run") || strings.HasPrefix(content, "Not run:") ||
		strings.HasPrefix(content, "No result: this call was not run")
}

// errorNote is one error entry: the tool, its target and the first line of
// the message.
func errorNote(tool, path, content string) string {
	first, _, _ := strings.Cut(strings.TrimSpace(content), "\n")
	if path != "" {
		return fmt.Sprintf("%s %s: %s", tool, path, first)
	}
	return tool + ": " + first
}

// preferenceStarts open a sentence in which the person states how they
// want the work done.
var preferenceStarts = []string{
	"always ", "never ", "prefer ", "i prefer ", "please always ", "please never ", "please don't ",
	"please do not ", "please avoid ", "please use ", "please keep ", "don't ", "do not ", "avoid ",
	"make sure ", "keep ", "use only ", "only use ", "i want you to ", "i'd like you to ",
}

// maxPreferenceSentence bounds a sentence taken as a preference: a long
// one is a task description, not a rule.
const maxPreferenceSentence = 200

// preferences finds the person's stated preferences in a prompt: the
// sentences that open like a rule ("Always run gofmt", "Don't touch the
// vendor directory", "Use tabs instead of spaces"). Deterministic and
// conservative: a sentence that merely mentions such a word is not one.
func preferences(prompt string) []string {
	var out []string
	for _, s := range sentences(prompt) {
		if len(s) > maxPreferenceSentence {
			continue
		}
		low := strings.ToLower(s) + " "
		ok := strings.Contains(low, " instead of ")
		for _, p := range preferenceStarts {
			ok = ok || strings.HasPrefix(low, p)
		}
		if ok {
			out = append(out, s)
		}
	}
	return out
}

// sentences splits text at line breaks and sentence ends (". ", "! ",
// "? ", "; ").
func sentences(text string) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		start := 0
		for i := 0; i < len(line); i++ {
			if strings.IndexByte(".!?;", line[i]) >= 0 && (i+1 == len(line) || line[i+1] == ' ') {
				out = appendSentence(out, line[start:i+1])
				start = i + 1
			}
		}
		out = appendSentence(out, line[start:])
	}
	return out
}

// listMarker is a bullet or a number opening a list item.
var listMarker = regexp.MustCompile(`^\s*(?:[-*•>]+|\d+[.)])\s+`)

func appendSentence(out []string, s string) []string {
	s = strings.TrimSpace(listMarker.ReplaceAllString(s, ""))
	if s == "" {
		return out
	}
	return append(out, s)
}
