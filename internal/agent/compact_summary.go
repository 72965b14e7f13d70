package agent

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strings"
	"text/template"
	"unicode/utf8"

	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/session"
	"github.com/olly-agent/olly/internal/tools"
)

// The summary call's prompt: the seven sections of the seed's compactor,
// in <analysis> tags.
//
//go:embed compact_prompt.md
var compactPrompt string

// compactTemplate is compactPrompt parsed, once.
var compactTemplate = template.Must(template.New("compact").Parse(compactPrompt))

// Summary call limits.
const (
	// summaryMaxTokens bounds the summary the model writes (num_predict).
	summaryMaxTokens = 2048
	// maxSummaryBytes bounds the summary kept, whatever the model wrote.
	maxSummaryBytes = 24_000
	// minSummaryRunes: a shorter "summary" is a refusal or an empty answer.
	minSummaryRunes = 20
	// transcriptCap is the first per-message cap of the transcript (bytes),
	// halved until the transcript fits its budget, down to
	// transcriptMinCap.
	transcriptCap    = 6000
	transcriptMinCap = 300
	// maxTaskQuote bounds the current request quoted after the summary.
	maxTaskQuote = 4000
)

// summarize asks the model for the structured summary of old (the
// messages being replaced, native format). One call; its failure is the
// caller's to handle.
func (a *Agent) summarize(ctx context.Context, j *compactJob, old []llm.Message) (string, error) {
	// The transcript gets what the window holds after the instructions
	// and the summary itself, and at most 60% of it.
	budget := min(j.numCtx-summaryMaxTokens-800, j.numCtx*6/10)
	data := struct{ Transcript, Instructions string }{transcript(old, max(budget, 500)), strings.TrimSpace(j.instructions)}
	var sys, user bytes.Buffer
	if err := compactTemplate.ExecuteTemplate(&sys, "system", data); err != nil {
		return "", fmt.Errorf("render the compaction prompt: %w", err)
	}
	if err := compactTemplate.ExecuteTemplate(&user, "request", data); err != nil {
		return "", fmt.Errorf("render the compaction prompt: %w", err)
	}
	// A summary needs no reasoning, and reasoning costs the window.
	text, err := a.ask(ctx, oneShot{model: j.model, system: sys.String(), user: user.String(), numCtx: j.numCtx,
		thinks: j.thinks, temperature: 0.2, numPredict: summaryMaxTokens})
	if err != nil {
		return "", err
	}
	return extractSummary(text)
}

// extractSummary takes the summary out of the model's answer: the text in
// <analysis> tags (to the end when the closing tag was cut off), reasoning
// in <think> tags removed. An answer without tags is taken whole. The
// result is always wrapped in <analysis> tags, and bounded.
func extractSummary(text string) (string, error) {
	text = stripThink(text)
	if i := strings.Index(asciiLower(text), "<analysis>"); i >= 0 {
		body := text[i+len("<analysis>"):]
		if j := strings.LastIndex(asciiLower(body), "</analysis>"); j >= 0 {
			body = body[:j]
		}
		text = body
	}
	text = strings.TrimSpace(text)
	if utf8.RuneCountInString(text) < minSummaryRunes {
		return "", errors.New("the model wrote no summary")
	}
	if len(text) > maxSummaryBytes {
		text = cutBytes(text, maxSummaryBytes) + "\n[summary cut at its size limit]"
	}
	return "<analysis>\n" + text + "\n</analysis>", nil
}

// cutBytes returns at most n bytes of s, ending on a character boundary.
func cutBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// transcript renders the messages being replaced for the summariser,
// within budget tokens: each message capped (head and tail kept), the caps
// halved until the whole fits, then the oldest messages left out (an
// earlier summary, always first, stays).
func transcript(msgs []llm.Message, budget int) string {
	for limit := transcriptCap; ; limit /= 2 {
		parts := make([]string, len(msgs))
		total := 0
		for i := range msgs {
			parts[i] = transcriptEntry(&msgs[i], limit)
			total += estimateTokens(parts[i])
		}
		if total <= budget || limit/2 < transcriptMinCap {
			return fitOldestFirst(parts, total, budget)
		}
	}
}

// fitOldestFirst drops the oldest parts (after an earlier summary) until
// the rest fits budget.
func fitOldestFirst(parts []string, total, budget int) string {
	keepFirst := len(parts) > 0 && strings.HasPrefix(parts[0], "[earlier summary]")
	start, dropped := 0, 0
	if keepFirst {
		start = 1
	}
	for total > budget && start+dropped < len(parts)-1 {
		total -= estimateTokens(parts[start+dropped])
		dropped++
	}
	out := make([]string, 0, len(parts)-dropped+1)
	if keepFirst {
		out = append(out, parts[0])
	}
	if dropped > 0 {
		out = append(out, fmt.Sprintf("[%d older messages left out: they did not fit the summariser's window]", dropped))
	}
	out = append(out, parts[start+dropped:]...)
	return strings.Join(out, "\n\n")
}

// transcriptEntry renders one message, its text capped at limit bytes.
func transcriptEntry(m *llm.Message, limit int) string {
	var b strings.Builder
	switch m.Role {
	case llm.RoleTool:
		name := m.ToolName
		if name == "" {
			name = "tool"
		}
		b.WriteString("[" + name + " result]\n")
	case llm.RoleUser:
		if session.IsSummary(m.Content) {
			b.WriteString("[earlier summary]\n")
		} else {
			b.WriteString("[user]\n")
		}
	default:
		b.WriteString("[" + string(m.Role) + "]\n")
	}
	b.WriteString(capMiddle(m.Content, limit))
	for _, c := range m.ToolCalls {
		b.WriteString("\n→ called " + c.Name + " " + capMiddle(string(c.Arguments), min(limit, 400)))
	}
	return b.String()
}

// capMiddle keeps the head (two thirds) and the tail of a long text.
func capMiddle(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	head := cutBytes(s, limit*2/3)
	tailStart := len(s) - limit/3
	for tailStart < len(s) && !utf8.RuneStart(s[tailStart]) {
		tailStart++
	}
	return head + fmt.Sprintf("\n…[%d bytes left out]…\n", tailStart-len(head)) + s[tailStart:]
}

// currentRequest quotes the running turn's prompt after the summary when
// its message is among those replaced: the summary's CURRENT STATE is the
// model's paraphrase, and the task must survive word for word.
func currentRequest(old []llm.Message, task string) string {
	task = strings.TrimSpace(task)
	if task == "" {
		return ""
	}
	for _, m := range old {
		if m.Role == llm.RoleUser && strings.HasSuffix(strings.TrimSpace(m.Content), task) {
			return "\n\nThe person's current request, word for word:\n" + preview(task, maxTaskQuote)
		}
	}
	return ""
}

// fallbackSummary is the summary when the model could not write one: the
// same seven sections, from the records only — the calls made, the files
// read and written, the errors — so it claims nothing that did not happen.
func fallbackSummary(old []llm.Message, mem *sessionMemory, cause error) string {
	var requests, steps, earlier []string
	files := &sessionMemory{}
	for _, m := range old {
		switch {
		case m.Role == llm.RoleUser && session.IsSummary(m.Content):
			earlier = append(earlier, cutBytes(m.Content, 3000))
		case m.Role == llm.RoleUser && !strings.HasPrefix(m.Content, "<agent_control>") && !strings.HasPrefix(m.Content, "Reminder"):
			requests = append(requests, oneLine(m.Content, 300))
		case m.Role == llm.RoleAssistant:
			for _, c := range m.ToolCalls {
				steps = append(steps, session.CallPhrase(c.Name, c.Arguments))
				fileOf(files, c)
			}
		}
	}
	if mem != nil {
		for _, f := range mem.FilesRead {
			files.addEntry(memFileRead, f)
		}
		for _, f := range mem.FilesWritten {
			files.addEntry(memFileWrite, f)
		}
	}
	var b strings.Builder
	b.WriteString("<analysis>\n1. CURRENT STATE\n")
	fmt.Fprintf(&b, "This summary was built by olly from the records, because the model could not write one (%v).\n", cause)
	list(&b, "Requests in the summarised part", requests, 5)
	b.WriteString("\n2. WORK COMPLETED\n")
	list(&b, "Tool calls, oldest first", steps, 40)
	b.WriteString("\n3. FILES INVOLVED\n")
	list(&b, "Read", files.FilesRead, maxFiles)
	list(&b, "Written", files.FilesWritten, maxFiles)
	b.WriteString("\n4. APPROACHES THAT FAILED\n")
	var errs []string
	if mem != nil {
		errs = mem.Errors
	}
	list(&b, "Errors met", errs, maxErrors)
	b.WriteString("\n5. PROMISES MADE\nNot recorded: the model's own words were not summarised.\n")
	b.WriteString("\n6. REMAINING WORK\nNot recorded: compare the latest request with the work completed.\n")
	b.WriteString("\n7. KEY CONTEXT\n")
	list(&b, "Earlier summary", earlier, 1)
	b.WriteString("</analysis>")
	return b.String()
}

// fileOf notes the file a read or write call names.
func fileOf(m *sessionMemory, c llm.ToolCall) {
	args, err := tools.ParseArgs(c.Arguments)
	if err != nil {
		return
	}
	p, _ := args.Path()
	switch c.Name {
	case "read_file":
		m.addEntry(memFileRead, p)
	case "write_file":
		m.addEntry(memFileWrite, p)
	}
}

// list writes a labelled list, the last n items, or "none recorded".
func list(b *strings.Builder, label string, items []string, n int) {
	if len(items) == 0 {
		fmt.Fprintf(b, "%s: none recorded.\n", label)
		return
	}
	if len(items) > n {
		fmt.Fprintf(b, "%s (the last %d of %d):\n", label, n, len(items))
		items = items[len(items)-n:]
	} else {
		b.WriteString(label + ":\n")
	}
	for _, it := range items {
		b.WriteString("- " + it + "\n")
	}
}
