package openai

import (
	"encoding/json"
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
	d := wiretest.NewDialect(Dialect, "/v1/chat/completions", New, WithRetry, WithTimeouts)
	wiretest.CachedOnWire(t, d, bodyEncoders.Plain)
}
