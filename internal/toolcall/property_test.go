package toolcall

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// piece is one part of a generated response: its text, what of it is
// displayed, and the calls it holds.
type piece struct {
	raw, display string
	calls        []want
	tagged       bool
}

// prosePieces are displayed as written (except the completion signal) and
// hold no calls, though they look like markup in many ways.
var prosePieces = []piece{
	{raw: "Hello world. ", display: "Hello world. "},
	{raw: "Compare a < b and c > d. ", display: "Compare a < b and c > d. "},
	{raw: "See [the docs](http://x) and [ ] boxes. ", display: "See [the docs](http://x) and [ ] boxes. "},
	{raw: "Braces {like this} and {\"a\": 1}. ", display: "Braces {like this} and {\"a\": 1}. "},
	{raw: "Inline `code` and ``more``. ", display: "Inline `code` and ``more``. "},
	{raw: "\n```go\nfunc f() { if x { return } }\n```\n", display: "\n```go\nfunc f() { if x { return } }\n```\n"},
	{raw: "\n```json\n{\"name\": \"my-app\", \"version\": \"1.0.0\"}\n```\n", display: "\n```json\n{\"name\": \"my-app\", \"version\": \"1.0.0\"}\n```\n"},
	{raw: "Example: {\"name\": \"fetch\", \"arguments\": {\"url\": \"u\"}} ", display: "Example: {\"name\": \"fetch\", \"arguments\": {\"url\": \"u\"}} "},
	{raw: "**Bold** _it_ <b>html</b> ", display: "**Bold** _it_ <b>html</b> "},
	{raw: "Done. [TASK_COMPLETE] ", display: "Done.  "},
	{raw: "\n", display: "\n"},
}

// trickyBits make up generated argument strings.
var trickyBits = []string{"{", "}", "[", "]", `"`, `\`, "</tool_call>", "<tool_call>", "[TOOL_CALLS]", "[TASK_COMPLETE]",
	"```", "\n", "\t", "é", "😀", "func main() {", "a < b", "'", "plain text "}

func randomArgs(r *rand.Rand) string {
	var content strings.Builder
	for range r.IntN(8) {
		content.WriteString(trickyBits[r.IntN(len(trickyBits))])
	}
	return `{"path": "dir/file.go", "content": ` + jsonString(content.String()) + `, "n": ` + []string{"1", "-2.5", "true", "null", "[1, {\"x\": []}]"}[r.IntN(5)] + `}`
}

// randomCall returns a call piece in a random format.
func randomCall(r *rand.Rand) piece {
	names := []string{"read_file", "write_file", "search_workspace", "run_terminal_command"}
	name := names[r.IntN(len(names))]
	args := randomArgs(r)
	obj := `{"name": "` + name + `", "arguments": ` + args + `}`
	switch r.IntN(7) {
	case 0:
		return piece{raw: "<tool_call>" + obj + "</tool_call>", tagged: true, calls: []want{{format: FormatXML, name: name, args: args}}}
	case 1:
		return piece{raw: "<tool_call>\n```json\n" + obj + "\n```\n</tool_call>", tagged: true, calls: []want{{format: FormatXML, name: name, args: args}}}
	case 2:
		return piece{raw: "[TOOL_CALLS]" + name + "[ARGS]" + args, tagged: true, calls: []want{{format: FormatBracket, name: name, args: args}}}
	case 3:
		return piece{raw: "[TOOL_CALLS] [" + obj + "]", tagged: true, calls: []want{{format: FormatBracket, name: name, args: args}}}
	case 4:
		return piece{raw: "<function=" + name + ">" + args + "</function>", tagged: true, calls: []want{{format: FormatFunction, name: name, args: args}}}
	case 5:
		return piece{raw: obj, calls: []want{{format: FormatBare, name: name, args: args}}}
	default:
		return piece{raw: "\n```json\n" + obj + "\n```\n", display: "\n\n", calls: []want{{format: FormatFence, name: name, args: args}}}
	}
}

// TestGeneratedResponses builds responses from prose and calls in every
// format and checks that Extract finds exactly the calls, Strip shows
// exactly the prose, streaming agrees, and stripped text holds no calls.
func TestGeneratedResponses(t *testing.T) {
	for seed := range uint64(300) {
		r := rand.New(rand.NewPCG(seed, 1))
		var raw, display strings.Builder
		var tagged, bare []want
		for range 1 + r.IntN(10) {
			p := prosePieces[r.IntN(len(prosePieces))]
			if r.IntN(3) == 0 {
				p = randomCall(r)
			}
			raw.WriteString(p.raw)
			display.WriteString(p.display)
			if p.tagged {
				tagged = append(tagged, p.calls...)
			} else {
				bare = append(bare, p.calls...)
			}
		}
		text := raw.String()
		wants := tagged
		if len(wants) == 0 {
			wants = bare
		}
		checkCalls(t, text, Extract(text, knownOpts), wants)
		if got := Strip(text, knownOpts); got != display.String() {
			t.Fatalf("seed %d: Strip(%q)\n= %q\nwant %q", seed, text, got, display.String())
		}
		if again := Extract(display.String(), knownOpts); len(again) != 0 {
			t.Fatalf("seed %d: the stripped text still holds calls: %s", seed, dumpCalls(again))
		}
		checkStreaming(t, text, knownOpts)
		vis, streamed := streamCompacting(text, knownOpts, []int{1, 4, 2}, 0)
		if vis != display.String() || dumpCalls(streamed) != dumpCalls(Extract(text, knownOpts)) {
			t.Fatalf("seed %d: streaming with eager compaction differs: %q", seed, vis)
		}
	}
}

// FuzzExtract checks invariants on any text: no panic; displayed text holds
// no call tags, [TOOL_CALLS] or [TASK_COMPLETE]; calls have object
// arguments (or say why not) and sane offsets; streaming in random chunks
// gives the same display and calls as one pass.
func FuzzExtract(f *testing.F) {
	seeds := []string{
		`<tool_call>{"name": "read_file", "arguments": {"path": "a"}}</tool_call>`,
		"<tool_call>\n```json\n{\"name\": \"x\"}\n```",
		`[TOOL_CALLS]read_file[ARGS]{"path": "a"}[TOOL_CALLS] [{"name": "b", "arguments": "{}"}]`,
		`[TOOL_CALLS]read_file[CALL_ID]a1b2c3d4e[ARGS]{"path": "a"}` + "\n[TOOL_CALLS]list_files[ARGS]{}",
		`<function=write_file><parameter=content>a</parameter></function>`,
		"```json\n{\"name\": \"read_file\", \"arguments\": {}}\n```\n{\"tool\": \"list_files\"}",
		`<tool<tool_call>{}</tool_call>_call> [TASK[TASK_COMPLETE]_COMPLETE]`,
		`{"name": "write_file", "arguments": {"content": "\ud83d\ude00 \" } </tool_call>`,
		"text [ {\"name\": \"read_file\"} ] <tool_c",
	}
	samples, _ := filepath.Glob("testdata/dialects/*.txt")
	for _, file := range samples {
		if b, err := os.ReadFile(file); err == nil {
			seeds = append(seeds, string(b))
		}
	}
	for i, s := range seeds {
		f.Add(s, uint64(i))
	}
	markers := []string{"<tool_call>", "</tool_call>", "[TOOL_CALLS]", tagFunctionCalls, tagFunctionCallsEnd}
	for _, d := range sectionDialects {
		markers = append(markers, d.begin, d.end, d.callBegin, d.callEnd)
	}
	f.Fuzz(func(t *testing.T, text string, chunkSeed uint64) {
		// The seed also picks the preferred dialect: none, or one of those
		// that change readings (Options.Prefer).
		opts := Options{Known: testKnown, Prefer: []Format{"", FormatBare, FormatGLM, FormatToolCode, FormatBracketArgs}[chunkSeed%5]}
		if chunkSeed&4 != 0 {
			opts.Params = fuzzParams
		}
		calls := Extract(text, opts)
		shown := Strip(text, opts)
		for _, m := range markers {
			if strings.Contains(shown, m) {
				t.Fatalf("Strip(%q) = %q contains %s", text, shown, m)
			}
		}
		if HasTaskComplete(shown) {
			t.Fatalf("Strip(%q) = %q contains [TASK_COMPLETE]", text, shown)
		}
		last := 0
		for _, c := range calls {
			if c.Start < last || c.End <= c.Start || c.End > len(text) {
				t.Fatalf("call span [%d, %d) out of order or range (text %d bytes, previous start %d)", c.Start, c.End, len(text), last)
			}
			last = c.Start
			if c.Arguments == nil && c.Problem == "" {
				t.Fatalf("call without arguments or problem: %s", dumpCalls([]Call{c}))
			}
			if c.Arguments != nil {
				var obj map[string]any
				if err := json.Unmarshal(c.Arguments, &obj); err != nil || obj == nil {
					t.Fatalf("arguments %s are not a JSON object: %v", c.Arguments, err)
				}
			}
		}
		for _, c := range Extract(shown, opts) {
			if c.Format == FormatXML || c.Format == FormatBracket {
				t.Fatalf("stripped text %q still holds a %s call", shown, c.Format)
			}
		}
		for _, compactMin := range []int{4096, 0} {
			vis, streamed := streamCompacting(text, opts, randomSizes(chunkSeed, 32, 9), compactMin)
			if vis != shown {
				t.Fatalf("streamed display %q, Strip %q (input %q)", vis, shown, text)
			}
			if dumpCalls(streamed) != dumpCalls(calls) {
				t.Fatalf("streamed calls differ:%s\nextract:%s", dumpCalls(streamed), dumpCalls(calls))
			}
		}
	})
}

// fuzzParams are parameter types for FuzzExtract (Options.Params).
var fuzzParams = map[string]map[string]string{
	"read_file":  {"path": "string", "limit": "integer", "ranges": "array"},
	"write_file": {"path": "string", "content": "string", "append": "boolean"},
	"list_files": {"path": "string", "depth": "number", "filter": "object"},
}

// streamCompacting is stream with the filter dropping text it no longer
// needs as soon as it can (compactMin 0), so that short fuzz inputs
// exercise what long responses do.
func streamCompacting(text string, opts Options, sizes []int, compactMin int) (string, []Call) {
	f := NewFilter(opts)
	f.s.compactMin = compactMin
	var b strings.Builder
	for i, k := 0, 0; i < len(text); k++ {
		n := min(sizes[k%len(sizes)], len(text)-i)
		b.WriteString(f.Write(text[i : i+n]))
		i += n
	}
	b.WriteString(f.Flush())
	return b.String(), f.Calls()
}
