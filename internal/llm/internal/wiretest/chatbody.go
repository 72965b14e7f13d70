package wiretest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/llm/llmtest"
)

// BodyEncoders are a dialect's two ways to encode a chat request: plain is
// json.Marshal of the whole request struct (what is sent without a cache),
// cached assembles the body with the request's EncodeCache, in pieces
// (wire.Pieces) that must stay as they are while later requests are built.
type BodyEncoders struct {
	Plain  func(*llm.ChatRequest) ([]byte, error)
	Cached func(*llm.ChatRequest) ([][]byte, error)
}

// SameBody checks that req encodes to the same bytes, or fails the same
// way, both ways.
// It returns the cached body's pieces.
func SameBody(t testing.TB, enc BodyEncoders, req *llm.ChatRequest, step string) [][]byte {
	t.Helper()
	want, werr := enc.Plain(req)
	pieces, gerr := enc.Cached(req)
	got := bytes.Join(pieces, nil)
	if (werr != nil) != (gerr != nil) || (werr != nil && werr.Error() != gerr.Error()) {
		t.Fatalf("%s: errors differ: plain %v, cached %v", step, werr, gerr)
	}
	if werr == nil && !bytes.Equal(got, want) {
		i := 0
		for i < len(got) && i < len(want) && got[i] == want[i] {
			i++
		}
		t.Fatalf("%s: bodies differ at byte %d:\ncached …%s\nplain  …%s", step, i, clip(got[i:]), clip(want[i:]))
	}
	return pieces
}

func clip(b []byte) []byte { return b[:min(len(b), 120)] }

// Conversation plays an agent's conversation of steps requests through one
// cache, checking every request with SameBody: messages are added, some
// replaced in place (a shortened result, a re-composed packet), the history
// is compacted, the system prompt, tools and options change, images and
// tool calls come and go. Strings from extra (fuzz input) are mixed in.
func Conversation(t testing.TB, enc BodyEncoders, r *rand.Rand, steps int, extra ...string) {
	t.Helper()
	g := &chatGen{r: r, extra: extra}
	cache := new(llm.EncodeCache)
	req := &llm.ChatRequest{Model: "qwen3:8b", Cache: cache,
		Messages: []llm.Message{{Role: llm.RoleSystem, Content: "You are olly. <rules> & more"}}}
	g.tools(req)
	// Every body's pieces and bytes: none may change under the requests
	// built after it (a transport may still be sending it).
	type held struct {
		pieces [][]byte
		body   []byte
		step   string
	}
	var bodies []held
	defer func() {
		for _, h := range bodies {
			if got := bytes.Join(h.pieces, nil); !bytes.Equal(got, h.body) {
				i := 0
				for i < len(got) && i < len(h.body) && got[i] == h.body[i] {
					i++
				}
				t.Fatalf("%s: the body changed under later requests at byte %d:\nnow …%s\nwas …%s", h.step, i, clip(got[i:]), clip(h.body[i:]))
			}
		}
	}()
	for i := range steps {
		kept := g.evolve(req)
		// A new slice each request, as the agent renders it, sharing the
		// messages' strings. Requests are numbered; most promise the
		// messages evolve kept (ChatRequest.Kept), and some are built
		// but never sent, so that the next promise is of a request the
		// cache did not encode.
		sent := *req
		sent.Messages = append([]llm.Message(nil), req.Messages...)
		sent.ID = uint64(i + 1)
		if i > 0 && g.r.IntN(4) != 0 {
			sent.KeptFrom, sent.Kept = uint64(i), kept
		}
		if g.r.IntN(10) == 0 {
			continue
		}
		step := fmt.Sprintf("step %d (%d messages, %d kept)", i, len(sent.Messages), sent.Kept)
		if p := SameBody(t, enc, &sent, step); p != nil {
			bodies = append(bodies, held{p, bytes.Join(p, nil), step})
		}
	}
}

type chatGen struct {
	r     *rand.Rand
	extra []string
	n     int
}

func (g *chatGen) text() string {
	g.n++
	pool := []string{"", "plain", "<b>&amp;</b> \"quoted\" \\ back", "héllo 世界 \u2028 \x00 \x1f", "\xff\xfe invalid utf-8",
		"line\nline\ttab", fmt.Sprintf("result %d %s", g.n, bytes.Repeat([]byte("x"), g.r.IntN(3000)))}
	if len(g.extra) > 0 && g.r.IntN(3) == 0 {
		return g.extra[g.r.IntN(len(g.extra))]
	}
	return pool[g.r.IntN(len(pool))]
}

func (g *chatGen) args() json.RawMessage {
	pool := []json.RawMessage{nil, json.RawMessage(`{"cmd":"ls <a> && b"}`), json.RawMessage(` { "path" : "x.go", "n": 1.50 } `),
		json.RawMessage(`[1,2]`), json.RawMessage(`{"broken":`), json.RawMessage(`null`), json.RawMessage(`{}`)}
	if len(g.extra) > 0 && g.r.IntN(3) == 0 {
		return json.RawMessage(g.extra[g.r.IntN(len(g.extra))])
	}
	return pool[g.r.IntN(len(pool))]
}

func (g *chatGen) image() []byte {
	// nil and empty differ: Ollama's images are null and "".
	pool := [][]byte{[]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), []byte("\xff\xd8\xff\xe0\x00\x10JFIF\x00"), []byte("GIF89a"), {}, nil, []byte(g.text())}
	return pool[g.r.IntN(len(pool))]
}

func (g *chatGen) message() llm.Message {
	roles := []llm.Role{llm.RoleUser, llm.RoleAssistant, llm.RoleTool, llm.RoleSystem, "other"}
	m := llm.Message{Role: roles[g.r.IntN(len(roles))], Content: g.text()}
	if g.r.IntN(4) == 0 {
		m.Thinking = g.text()
	}
	if g.r.IntN(5) == 0 {
		for range 1 + g.r.IntN(2) {
			m.Images = append(m.Images, g.image())
		}
	}
	if g.r.IntN(3) == 0 {
		for j := range 1 + g.r.IntN(3) {
			m.ToolCalls = append(m.ToolCalls, llm.ToolCall{ID: fmt.Sprintf("call_%d", j), Index: j, Name: g.text(),
				Arguments: g.args(), RawArguments: g.text()})
		}
	}
	if g.r.IntN(3) == 0 {
		m.ToolName, m.ToolCallID = g.text(), g.text()
	}
	return m
}

func (g *chatGen) tools(req *llm.ChatRequest) {
	req.Tools = nil
	schemas := []json.RawMessage{nil, json.RawMessage(`{"type":"object","properties":{"i":{"type":"integer"}}}`), json.RawMessage(" null "),
		json.RawMessage(`{ "type" : "object" }`)}
	for i := range g.r.IntN(4) {
		req.Tools = append(req.Tools, llm.Tool{Name: fmt.Sprintf("tool%d", i), Description: g.text(), Parameters: schemas[g.r.IntN(len(schemas))]})
	}
	if len(g.extra) > 0 && g.r.IntN(8) == 0 {
		req.Tools = append(req.Tools, llm.Tool{Name: "x", Parameters: json.RawMessage(g.extra[0])})
	}
}

// evolve changes the conversation the way an agent's does between two
// requests, mostly by adding messages. It returns how many messages after
// the first are still, at their positions, what they were.
func (g *chatGen) evolve(req *llm.ChatRequest) (kept int) {
	msgs := req.Messages
	kept = len(msgs) - 1
	switch k := g.r.IntN(21); {
	case k < 12 || len(msgs) < 3:
		for range 1 + g.r.IntN(3) {
			msgs = append(msgs, g.message())
		}
	case k < 14: // a message replaced in place
		j := 1 + g.r.IntN(len(msgs)-1)
		msgs[j], kept = g.message(), j-1
	case k < 15: // compaction: a summary and the recent messages
		keep := msgs[len(msgs)-g.r.IntN(len(msgs)-1)-1:]
		msgs = append([]llm.Message{msgs[0], {Role: llm.RoleUser, Content: "Summary: " + g.text()}}, keep...)
		kept = 0
	case k < 16: // the system prompt
		msgs[0] = llm.Message{Role: llm.RoleSystem, Content: "You are olly. " + g.text()}
	case k < 17:
		g.tools(req)
	case k < 18: // one field of a message changed, the others kept
		j := 1 + g.r.IntN(len(msgs)-1)
		g.tweak(&msgs[j])
		kept = j - 1
	case k < 19:
		req.Model = []string{"qwen3:8b", "llama<3>&", "m"}[g.r.IntN(3)]
	default:
		g.options(req)
	}
	req.Messages = msgs
	return kept
}

// tweak changes one field of m: new slices, so that the message the
// cache kept stays as it was.
func (g *chatGen) tweak(m *llm.Message) {
	switch g.r.IntN(5) {
	case 0:
		m.Thinking += "x"
	case 1:
		m.Images = append(append([][]byte(nil), m.Images...), g.image())
		if g.r.IntN(2) == 0 { // only an image's nil-ness changes
			m.Images = m.Images[:len(m.Images)-1]
			if len(m.Images) == 0 {
				m.Images = [][]byte{nil}
			}
			if m.Images[0] == nil {
				m.Images[0] = []byte{}
			} else if len(m.Images[0]) == 0 {
				m.Images[0] = nil
			}
		}
	case 2:
		m.ToolName += "x"
	case 3:
		m.ToolCalls = append(append([]llm.ToolCall(nil), m.ToolCalls...), llm.ToolCall{Name: "noop"})
		m.ToolCalls[0].Index++
	default:
		calls := append([]llm.ToolCall(nil), m.ToolCalls...)
		if len(calls) == 0 {
			calls = append(calls, llm.ToolCall{Name: "noop"})
		}
		calls[0].Arguments = []json.RawMessage{json.RawMessage(`{"i":1}`), json.RawMessage(`{"i":2}`), nil}[g.r.IntN(3)]
		m.ToolCalls = calls
	}
}

func (g *chatGen) options(req *llm.ChatRequest) {
	req.Options = llm.Options{}
	if g.r.IntN(2) == 0 {
		req.Options.NumCtx, req.Options.Temperature = llm.Ptr(g.r.IntN(1<<17)), llm.Ptr(g.r.Float64())
	}
	if g.r.IntN(3) == 0 {
		req.Options.NumPredict, req.Options.Stop = llm.Ptr(g.r.IntN(9)-2), []string{"</s>", g.text()}
	}
	thinks := []*llm.Think{nil, {Enabled: true}, {Enabled: false}, {Level: "high"}}
	req.Think = thinks[g.r.IntN(len(thinks))]
	formats := []json.RawMessage{nil, json.RawMessage(`"json"`), json.RawMessage(`json`), json.RawMessage(`{"type":"object"}`)}
	req.Format = formats[g.r.IntN(len(formats))]
	req.KeepAlive = []string{"", "30m", "-1", "0", " 5 "}[g.r.IntN(5)]
	truncs := []*bool{nil, llm.Ptr(false), llm.Ptr(true)}
	req.Truncate = truncs[g.r.IntN(len(truncs))]
}

// CachedOnWire sends a growing conversation with a cache, one request
// retried after a 503, and checks that the server received each body as
// the plain encoding.
func CachedOnWire(t *testing.T, d Dialect, plain func(*llm.ChatRequest) ([]byte, error)) {
	srv := NewServer(t)
	c, _ := d.NewClient(t, srv)
	req := &llm.ChatRequest{Model: Model, Cache: new(llm.EncodeCache), Think: &llm.Think{Enabled: true},
		Tools:    []llm.Tool{{Name: "read", Description: "Reads <a> file.", Parameters: json.RawMessage(`{"type":"object"}`)}},
		Messages: []llm.Message{{Role: llm.RoleSystem, Content: "system & rules"}, {Role: llm.RoleUser, Content: "hi", Images: [][]byte{[]byte("\x89PNG\r\n\x1a\n")}}}}
	for i := range 4 {
		if i == 2 {
			srv.Enqueue(llmtest.Status(503, "busy"))
		}
		srv.Enqueue(llmtest.Reply(llmtest.Text("ok")))
		Chat(t, c, req)
		want, err := plain(req)
		if err != nil {
			t.Fatal(err)
		}
		if got := srv.LastRequest(d.ChatPath).Body; !bytes.Equal(got, want) {
			t.Fatalf("request %d: the server received\n%s\nwant\n%s", i, got, want)
		}
		// From the second request on, a result of 100 KB: bodies far
		// larger than the transport's write buffer, sent with their head
		// in one writev of the pieces (reqConn).
		result := fmt.Sprint("package a // ", i)
		if i > 0 {
			result = strings.Repeat(fmt.Sprintf("<%d> & \"x\"\n", i), 10_000)
		}
		req.Messages = append(req.Messages, llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: fmt.Sprint("c", i), Name: "read", Arguments: json.RawMessage(`{"path":"a.go"}`)}}},
			llm.Message{Role: llm.RoleTool, ToolName: "read", ToolCallID: fmt.Sprint("c", i), Content: result})
	}
}
