package agent

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/olly-agent/olly/internal/llm"
)

func TestExtractSummary(t *testing.T) {
	body := "1. CURRENT STATE\nFixing the parser."
	tests := []struct {
		name, in, want string
		err            bool
	}{
		{"tags", "Sure.\n<analysis>\n" + body + "\n</analysis>\nDone.", "<analysis>\n" + body + "\n</analysis>", false},
		{"reasoning dropped", "<think>plan <analysis>fake</analysis></think><ANALYSIS>" + body + "</ANALYSIS>", "<analysis>\n" + body + "\n</analysis>", false},
		{"closing tag cut off", "<analysis>\n" + body, "<analysis>\n" + body + "\n</analysis>", false},
		{"no tags: the whole answer", body, "<analysis>\n" + body + "\n</analysis>", false},
		{"empty", "<think>only thinking</think>", "", true},
		{"too short", "<analysis>ok</analysis>", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := extractSummary(tt.in)
			if (err != nil) != tt.err || got != tt.want {
				t.Errorf("extractSummary = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
	long, err := extractSummary("<analysis>" + strings.Repeat("é", maxSummaryBytes) + "</analysis>")
	if err != nil || len(long) > maxSummaryBytes+100 || !utf8.ValidString(long) || !strings.Contains(long, "[summary cut at its size limit]") {
		t.Errorf("long summary: %d bytes, %v", len(long), err)
	}
}

func TestTranscript(t *testing.T) {
	msgs := []llm.Message{
		{Role: llm.RoleUser, Content: "Summary of the earlier conversation (it was compacted to fit the context window):\n\nS0"},
		{Role: llm.RoleUser, Content: "fix the bug"},
		{Role: llm.RoleAssistant, Content: "reading", ToolCalls: []llm.ToolCall{{Name: "read_file", Arguments: json.RawMessage(`{"path":"a.go"}`)}}},
		{Role: llm.RoleTool, ToolName: "read_file", Content: "HEAD" + strings.Repeat("x", 20000) + "TAIL"},
	}
	got := transcript(msgs, 100000)
	for _, want := range []string{"[earlier summary]\nSummary of", "[user]\nfix the bug", "[assistant]\nreading\n→ called read_file {\"path\":\"a.go\"}",
		"[read_file result]\nHEAD", "TAIL", "bytes left out"} {
		if !strings.Contains(got, want) {
			t.Errorf("transcript lacks %q", want)
		}
	}
	// A small budget: caps shrink, then the oldest messages go, but the
	// earlier summary stays first.
	small := transcript(append(msgs, llm.Message{Role: llm.RoleUser, Content: strings.Repeat("word ", 3000)}), 200)
	if !strings.HasPrefix(small, "[earlier summary]") || !strings.Contains(small, "older messages left out") {
		t.Errorf("small transcript:\n%s", small)
	}
	if n := estimateTokens(small); n > 400 {
		t.Errorf("small transcript is %d tokens for a budget of 200", n)
	}
}

func TestFallbackSummary(t *testing.T) {
	old := []llm.Message{
		{Role: llm.RoleUser, Content: "Summary of the earlier conversation (it was compacted to fit the context window):\n\nEARLIER"},
		{Role: llm.RoleUser, Content: "rename Parse to ParseAll"},
		{Role: llm.RoleAssistant, Content: "ok", ToolCalls: []llm.ToolCall{
			{Name: "read_file", Arguments: json.RawMessage(`{"path":"p.go"}`)},
			{Name: "write_file", Arguments: json.RawMessage(`{"path":"p.go","content":"x"}`)},
			{Name: "run_terminal_command", Arguments: json.RawMessage(`{"command":"go build ./..."}`)},
		}},
		{Role: llm.RoleTool, ToolName: "read_file", Content: "package p"},
		{Role: llm.RoleUser, Content: "<agent_control>{}</agent_control>"},
	}
	mem := &sessionMemory{Errors: []string{"`go build ./...` exited with code 1"}, FilesRead: []string{"q.go"}}
	got := fallbackSummary(old, mem, errors.New("HTTP 500"))
	for _, want := range []string{"<analysis>\n1. CURRENT STATE", "HTTP 500", "- rename Parse to ParseAll", "2. WORK COMPLETED",
		"- read p.go", "- wrote p.go", "- ran `go build ./...`", "3. FILES INVOLVED\nRead:\n- p.go\n- q.go\nWritten:\n- p.go",
		"4. APPROACHES THAT FAILED\nErrors met:\n- `go build ./...` exited with code 1", "5. PROMISES MADE", "6. REMAINING WORK",
		"7. KEY CONTEXT\nEarlier summary:\n- Summary of the earlier conversation", "EARLIER", "</analysis>"} {
		if !strings.Contains(got, want) {
			t.Errorf("fallback summary lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "<agent_control>") {
		t.Error("a control packet was taken for a request")
	}
}

func FuzzExtractSummary(f *testing.F) {
	for _, s := range []string{"<analysis>1. CURRENT STATE x</analysis>", "<think>a</think>b b b b b b b b b b b", "</analysis><analysis>", "<analysis>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := extractSummary(s)
		if err != nil {
			return
		}
		if !strings.HasPrefix(got, "<analysis>\n") || !strings.HasSuffix(got, "\n</analysis>") || len(got) > maxSummaryBytes+100 {
			t.Fatalf("extractSummary(%q) = %q", s, got)
		}
		if utf8.ValidString(s) && !utf8.ValidString(got) {
			t.Fatalf("invalid UTF-8 from %q", s)
		}
	})
}

func FuzzMemoryFromJSON(f *testing.F) {
	for _, s := range []string{`{"filesRead":["a.go"],"errors":["x"]}`, `null`, `{"version":1,"task":"t"}`, `[]`, `{"notes":["` + strings.Repeat("n", 500) + `"]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		m, err := memoryFromJSON(raw)
		if m == nil {
			t.Fatal("nil memory")
		}
		if err != nil && !m.empty() {
			t.Fatal("invalid input left notes")
		}
		for _, c := range m.categories() {
			if _, limit := m.list(c.cat); len(c.list) > limit {
				t.Fatalf("%s holds %d entries", c.cat, len(c.list))
			}
			for _, e := range c.list {
				if e == "" || strings.ContainsAny(e, "\n\r") || utf8.RuneCountInString(e) > maxEntry {
					t.Fatalf("entry %q", e)
				}
			}
		}
		// What is stored reads back the same.
		again, err := memoryFromJSON(m.toJSON())
		if err != nil || again.block() != m.block() {
			t.Fatalf("round trip: %v\n%s\n%s", err, m.block(), again.block())
		}
	})
}

func FuzzEstimateTokens(f *testing.F) {
	for _, s := range []string{"hello world", "if err != nil {\n\treturn err\n}", "日本語", "\xff\xfe", "   "} {
		f.Add(s, "tail")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		na, nb, nab := estimateTokens(a), estimateTokens(b), estimateTokens(a+b)
		if na < 0 || na > len(a) {
			t.Fatalf("estimateTokens(%q) = %d", a, na)
		}
		// Joining two texts changes at most the runs at the seam: two
		// runs become one, or two single spaces become a counted run.
		if nab > na+nb+1 || nab < na+nb-2 {
			t.Fatalf("estimate of the join %d, parts %d + %d", nab, na, nb)
		}
	})
}
