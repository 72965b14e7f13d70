package ollama

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/llm/internal/wire"
	"github.com/olly-agent/olly/internal/llm/internal/wiretest"
)

// bodyEncoders are this dialect's request body without a cache (the whole
// struct through json.Marshal) and with one.
var bodyEncoders = wiretest.BodyEncoders{
	Plain: func(r *llm.ChatRequest) ([]byte, error) { return json.Marshal(newChatRequest(r)) },
	Cached: func(r *llm.ChatRequest) ([][]byte, error) {
		return chatBody(r).(wire.BodyEncoder).EncodeBody()
	},
}

// TestChatBodyCached: a conversation's requests assembled from cached
// message encodings are byte for byte the plain encoding, through
// additions, replacements, compactions and changes of prompt, tools and
// options.
func TestChatBodyCached(t *testing.T) {
	for seed := range uint64(40) {
		wiretest.Conversation(t, bodyEncoders, rand.New(rand.NewPCG(seed, 17)), 60)
	}
}

func FuzzChatBody(f *testing.F) {
	f.Add(uint64(1), "<script>&", `{"a":"\u2028"}`)
	f.Add(uint64(2), "\xff", `{"broken":`)
	f.Add(uint64(3), "", "")
	f.Fuzz(func(t *testing.T, seed uint64, s, args string) {
		wiretest.Conversation(t, bodyEncoders, rand.New(rand.NewPCG(seed, 3)), 12, s, args)
	})
}

func TestChatBodyOnWire(t *testing.T) {
	d := wiretest.NewDialect(Dialect, "/api/chat", New, WithRetry, WithTimeouts)
	wiretest.CachedOnWire(t, d, bodyEncoders.Plain)
}

// BenchmarkChatBody encodes one iteration's request body, whole (plain) or
// from the conversation's cache, at 20 and 200 messages.
func BenchmarkChatBody(b *testing.B) {
	for _, n := range []int{20, 200} {
		for _, cached := range []bool{false, true} {
			b.Run(fmt.Sprintf("messages=%d/cached=%v", n, cached), func(b *testing.B) {
				wiretest.BenchIterations(b, n, cached, func(r *llm.ChatRequest) {
					if _, err := wire.Encode(chatBody(r)); err != nil {
						b.Fatal(err)
					}
				})
			})
		}
	}
}

// TestChatBodyNilImage: an image that is nil and one that is empty encode
// differently here (null, ""), so a message whose image went from one to
// the other is encoded again; bytes.Equal took them for the same, and the
// cache sent the last request's encoding.
func TestChatBodyNilImage(t *testing.T) {
	cache := new(llm.EncodeCache)
	sys := llm.Message{Role: llm.RoleSystem, Content: "sys"}
	for i, img := range [][]byte{{}, nil, {}} {
		req := &llm.ChatRequest{Model: "m", Cache: cache, Messages: []llm.Message{sys, {Role: llm.RoleUser, Content: "see", Images: [][]byte{img}}}}
		wiretest.SameBody(t, bodyEncoders, req, fmt.Sprint("request ", i))
	}
}
