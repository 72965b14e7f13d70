package toolcall

import (
	"strings"
	"testing"
)

// benchResponse builds about size bytes of model output: markdown prose with
// code blocks, links, braces and JSON examples, and a few calls spread
// through it, one of them a write_file with a whole source file.
func benchResponse(size int) string {
	prose := []string{
		"The handler reads the request, validates it and writes a response. ",
		"See [the design](docs/design.md) and compare `a < b` with `c > d`. ",
		"```go\nfunc (s *Server) handle(w http.ResponseWriter, r *http.Request) {\n\tif err := s.check(r); err != nil {\n\t\thttp.Error(w, err.Error(), 400)\n\t}\n}\n```\n",
		"A config such as {\"port\": 8080, \"debug\": false} is read at start. ",
		"\n- item one\n- item [two]\n- item {three}\n\n",
		"```json\n{\"name\": \"example-app\", \"version\": \"2.1.0\", \"private\": true}\n```\n",
		"**Note:** the `Filter` holds back `<tool_c` until it knows. ",
	}
	calls := []string{
		"<tool_call>{\"name\": \"read_file\", \"arguments\": {\"path\": \"internal/server/handler.go\"}}</tool_call>\n",
		"<tool_call>{\"name\": \"write_file\", \"arguments\": {\"path\": \"main.go\", \"content\": " + jsonString(strings.Repeat(sourceFile, 20)) + "}}</tool_call>\n",
		"[TOOL_CALLS]search_workspace[ARGS]{\"query\": \"func handle\", \"isRegex\": false}\n",
	}
	var b strings.Builder
	for i := 0; b.Len() < size; i++ {
		b.WriteString(prose[i%len(prose)])
		if i%2000 == 1000 {
			b.WriteString(calls[(i/2000)%len(calls)])
		}
	}
	return b.String()
}

func BenchmarkExtract(b *testing.B) {
	text := benchResponse(1 << 20)
	if n := len(Extract(text, knownOpts)); n == 0 {
		b.Fatal("the benchmark text holds no calls")
	}
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		Extract(text, knownOpts)
	}
}

func BenchmarkStrip(b *testing.B) {
	text := benchResponse(1 << 20)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		Strip(text, knownOpts)
	}
}

// BenchmarkFilter5 streams the same response in 5-byte deltas, as a model
// server sends tokens.
func BenchmarkFilter5(b *testing.B) {
	text := benchResponse(1 << 20)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		f := NewFilter(knownOpts)
		for i := 0; i < len(text); i += 5 {
			f.Write(text[i:min(i+5, len(text))])
		}
		f.Flush()
		f.Calls()
	}
}

// largeCall is one write_file call of about 1 MB.
func largeCall() string {
	return "<tool_call>{\"name\": \"write_file\", \"arguments\": {\"path\": \"big.go\", \"content\": " +
		jsonString(strings.Repeat(sourceFile, (1<<20)/len(sourceFile))) + "}}</tool_call>"
}

// BenchmarkExtractLargeCall parses one 1 MB call at once, the reference for
// BenchmarkFilterLargeCall5.
func BenchmarkExtractLargeCall(b *testing.B) {
	text := largeCall()
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		Extract(text, knownOpts)
	}
}

// BenchmarkFilterLargeCall5 streams one 1 MB write_file call in 5-byte
// deltas: the JSON parser must continue, not restart, per delta.
func BenchmarkFilterLargeCall5(b *testing.B) {
	text := largeCall()
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		f := NewFilter(knownOpts)
		for i := 0; i < len(text); i += 5 {
			f.Write(text[i:min(i+5, len(text))])
		}
		f.Flush()
		if len(f.Calls()) != 1 {
			b.Fatal("want one call")
		}
	}
}

// adversarial are inputs built to make a careless scanner quadratic:
// candidates that fail late, markers that almost match, long held text.
var adversarial = map[string]string{
	"open braces":                  strings.Repeat("{", 1<<18),
	"open brackets":                strings.Repeat("[ ", 1<<17),
	"nested keys":                  strings.Repeat(`{"a":`, 1<<16),
	"unclosed string":              `{"name": "` + strings.Repeat("x", 1<<18),
	"almost tags":                  strings.Repeat("<tool_cal", 1<<15),
	"almost markers":               strings.Repeat("[TOOL_CALL[TASK_COMPLET", 1<<14),
	"angle openers":                strings.Repeat("<", 1<<18),
	"backtick lines":               strings.Repeat("```\n", 1<<16),
	"fence spaces":                 "```" + strings.Repeat(" ", 1<<18),
	"qwen value":                   "<function=write_file><parameter=content>" + strings.Repeat("<", 1<<18),
	"unclosed xml":                 "<tool_call>{\"name\": \"x\", \"arguments\": {\"path\": a}}" + strings.Repeat("<tool_ca", 1<<15),
	"known bare objects":           strings.Repeat(`{"name": "read_file"} `, 1<<13),
	"escapes, far quote":           `<tool_call>{"name": "write_file", "arguments": {"content": "` + strings.Repeat(`\n`, 1<<17) + `"}}</tool_call>`,
	"short strings, far backslash": `<tool_call>{"name": "x", "arguments": {"a": [` + strings.Repeat(`"ab", `, 1<<16) + `"\\"]}}</tool_call>`,
	"triple quotes, almost closed": `<tool_call>{"name": "x", "arguments": {"a": """` + strings.Repeat(`""x`, 1<<16),
}

// BenchmarkAdversarial runs each adversarial input one-shot and in 5-byte
// deltas. Linear behaviour shows as MB/s in the same range as prose.
func BenchmarkAdversarial(b *testing.B) {
	for name, text := range adversarial {
		b.Run(name+"/extract", func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				Extract(text, knownOpts)
			}
		})
		b.Run(name+"/filter5", func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				f := NewFilter(knownOpts)
				for i := 0; i < len(text); i += 5 {
					f.Write(text[i:min(i+5, len(text))])
				}
				f.Flush()
			}
		})
	}
}
