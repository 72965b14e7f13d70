package wiretest

import (
	"context"
	"testing"

	"github.com/olly-agent/olly/internal/llm"
)

// BenchChat measures a client decoding body, a whole chat response served
// over real loopback HTTP with contentType; newClient builds the client
// for the server's URL.
func BenchChat(b *testing.B, contentType string, body []byte, newClient func(baseURL string) (llm.Provider, error)) {
	srv := ServeBody(b, contentType, body)
	c, err := newClient(srv.URL)
	if err != nil {
		b.Fatal(err)
	}
	req := &llm.ChatRequest{Model: Model, Messages: []llm.Message{{Role: llm.RoleUser, Content: "go"}}}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		s, err := c.Chat(context.Background(), req)
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for {
			ch, err := s.Recv()
			if err != nil {
				break
			}
			n += len(ch.Content) + len(ch.Thinking) + len(ch.ToolCalls)
		}
		if n == 0 {
			b.Fatal("nothing decoded")
		}
		_ = s.Close()
	}
}

// Tokens are the pieces of code the benchmarks' streams are made of, with
// the characters that need escaping or are more than one byte.
func Tokens() []string {
	return []string{"func", " main", "()", " {\n", "\t", "fmt", ".", "Println", "(\"", "héllo", "\")", "\n}", " <", "T", ">", " &&", " x", " :=", " 42", "\n"}
}
