package session

import (
	"encoding/json"
	"strings"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	"github.com/olly-agent/olly/internal/llm"
)

// summaryArgMax bounds an argument quoted in a tool-call summary.
const summaryArgMax = 60

// ToolCallSummary describes tool calls in one short sentence ("I searched
// for 'parseArgs' and read src/args.go"). It is the history content of an
// assistant turn that called tools without writing any text: with
// "[Reasoning completed]" there, thinking models cannot see what they did
// and re-derive the same plan (seed pitfall #38). Deterministic: the same
// calls always give the same sentence.
func ToolCallSummary(calls []llm.ToolCall) string {
	if len(calls) == 0 {
		return ReasoningCompleted
	}
	phrases := make([]string, 0, len(calls))
	for _, c := range calls {
		phrases = append(phrases, CallPhrase(c.Name, c.Arguments))
	}
	return "I " + joinPhrases(phrases)
}

// CallPhrase describes one call as a verb phrase without subject ("read
// main.go", "ran `go test ./...`").
//
// The last call's phrase is kept: an iteration asks for the same call's
// three times (the step for the fallback summary, the history's content of
// an answer without text, its rendering), and each parses the arguments.
// Arguments over phraseMemoMax bytes are not kept (a file's content).
func CallPhrase(name string, arguments json.RawMessage) string {
	if m := lastPhrase.Load(); m != nil && m.name == name && m.args == string(arguments) {
		return m.phrase
	}
	p := callPhrase(name, arguments)
	if len(arguments) <= phraseMemoMax {
		lastPhrase.Store(&phraseMemo{name: name, args: string(arguments), phrase: p})
	}
	return p
}

// phraseMemo is the last phrase CallPhrase made, and of what.
type phraseMemo struct{ name, args, phrase string }

var lastPhrase atomic.Pointer[phraseMemo]

const phraseMemoMax = 4 << 10

func callPhrase(name string, arguments json.RawMessage) string {
	var args map[string]any
	_ = json.Unmarshal(arguments, &args) // no arguments: the generic phrase
	str := func(keys ...string) string {
		for _, k := range keys {
			if s, ok := args[k].(string); ok && strings.TrimSpace(s) != "" {
				return shorten(strings.TrimSpace(s))
			}
		}
		return ""
	}
	path := str("path", "file", "filePath", "file_path")
	switch name {
	case "read_file":
		return orGeneric("read "+path, path, name)
	case "write_file":
		return orGeneric("wrote "+path, path, name)
	case "list_files":
		if path == "" {
			return "listed the workspace root"
		}
		return "listed " + path
	case "search_workspace":
		q := str("query", "pattern", "text")
		return orGeneric("searched for '"+q+"'", q, name)
	case "find_files":
		q := str("pattern", "query", "glob", "name")
		return orGeneric("looked for files matching '"+q+"'", q, name)
	case "run_terminal_command":
		cmd := str("command", "cmd")
		return orGeneric("ran `"+cmd+"`", cmd, name)
	case "get_diagnostics":
		if path == "" {
			return "checked the diagnostics"
		}
		return "checked the diagnostics of " + path
	case "run_subagent":
		t := str("title", "task")
		return orGeneric("asked a sub-agent to "+lowerFirst(t), t, name)
	}
	if sym := str("symbolName", "symbol", "query"); sym != "" {
		return "looked up " + sym + " with " + name
	}
	if path != "" {
		return "called " + name + " on " + path
	}
	return "called " + name
}

func orGeneric(phrase, arg, name string) string {
	if arg == "" {
		return "called " + name
	}
	return phrase
}

// joinPhrases joins "a", "a and b", "a, b and c".
func joinPhrases(p []string) string {
	switch len(p) {
	case 0:
		return ""
	case 1:
		return p[0]
	}
	return strings.Join(p[:len(p)-1], ", ") + " and " + p[len(p)-1]
}

// shorten cuts s to summaryArgMax runes on one line.
func shorten(s string) string {
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = s[:i] + "…"
	}
	if utf8.RuneCountInString(s) <= summaryArgMax {
		return s
	}
	r := []rune(s)
	return string(r[:summaryArgMax-1]) + "…"
}

// lowerFirst lowers a capitalised first word ("Map the flow" → "map the
// flow") but leaves acronyms ("README", "HTTP") alone.
func lowerFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError || n == 0 {
		return s
	}
	if next, _ := utf8.DecodeRuneInString(s[n:]); unicode.IsUpper(next) {
		return s
	}
	return string(unicode.ToLower(r)) + s[n:]
}
