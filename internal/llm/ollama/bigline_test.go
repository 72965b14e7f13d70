package ollama_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/llm/internal/wiretest"
	"github.com/olly-agent/olly/internal/llm/llmtest"
)

// A tool call that writes a whole file arrives as one NDJSON line of
// whatever size the file has; bufio.Scanner's default limit would fail at
// 64 KiB.
func TestToolCallLineOfTensOfMegabytes(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"path":"big.go","content":"`)
	line := `fmt.Println(\"line\")\n\t// ünïcode\n`
	for b.Len() < bigLine {
		b.WriteString(line)
	}
	b.WriteString(`"}`)
	args := b.String()

	srv := wiretest.NewServer(t)
	srv.Enqueue(llmtest.Reply(llmtest.Text("writing"), llmtest.ToolCall("write_file", args), llmtest.Text("done")))
	c, _ := newClient(t, srv)
	chunks := wiretest.Chat(t, c, wiretest.ChatReq(model))
	var calls []llm.ToolCall
	for _, ch := range chunks {
		calls = append(calls, ch.ToolCalls...)
	}
	if len(calls) != 1 || calls[0].Name != "write_file" || !bytes.Equal(calls[0].Arguments, []byte(args)) {
		t.Fatalf("got %d calls; arguments intact: %v", len(calls), len(calls) == 1 && bytes.Equal(calls[0].Arguments, []byte(args)))
	}
	if chunks[len(chunks)-2].Content != "done" || !chunks[len(chunks)-1].Done {
		t.Errorf("the stream did not continue after the long line")
	}
}
