package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/olly-agent/olly/internal/llm"
)

type testMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type testRest struct {
	Stream bool `json:"stream"`
}

func testBody(dialect string, cache *llm.EncodeCache, msgs ...llm.Message) *ChatBody {
	conv := func(m llm.Message) any { return testMessage{Role: string(m.Role), Content: m.Content} }
	if dialect == "upper" {
		conv = func(m llm.Message) any { return testMessage{Role: "U" + string(m.Role), Content: m.Content} }
	}
	return &ChatBody{Dialect: dialect, Model: "m", Messages: msgs, Message: conv, Rest: testRest{Stream: true}, Cache: cache}
}

func encodeString(t *testing.T, b *ChatBody) string {
	t.Helper()
	p, err := b.EncodeBody()
	if err != nil {
		t.Fatal(err)
	}
	return string(p.Bytes())
}

// TestChatBodyPiecesStay: what one request's body is made of is never
// written again, whatever the next request changes (the transport may
// still be sending it).
func TestChatBodyPiecesStay(t *testing.T) {
	cache := new(llm.EncodeCache)
	a, b, c := llm.Message{Role: "user", Content: "a"}, llm.Message{Role: "assistant", Content: "b"}, llm.Message{Role: "user", Content: "c"}
	first, err := testBody("d", cache, a, b, c).EncodeBody()
	if err != nil {
		t.Fatal(err)
	}
	snapshot := string(first.Bytes())
	for _, msgs := range [][]llm.Message{{a, c}, {a}, {c, b, a, a}, {a, b, c, c}} {
		_ = encodeString(t, testBody("d", cache, msgs...))
	}
	if got := string(first.Bytes()); got != snapshot {
		t.Fatalf("the first body changed under later requests:\n%s\nwas\n%s", got, snapshot)
	}
	const want = `{"model":"m","messages":[{"role":"user","content":"a"},{"role":"assistant","content":"b"},{"role":"user","content":"c"}],"stream":true}`
	if snapshot != want {
		t.Fatalf("body\n%s\nwant\n%s", snapshot, want)
	}
}

// TestChatBodyDialects: a cache used by another dialect is not read.
func TestChatBodyDialects(t *testing.T) {
	cache := new(llm.EncodeCache)
	m := llm.Message{Role: "user", Content: "x"}
	if got := encodeString(t, testBody("d", cache, m)); !bytes.Contains([]byte(got), []byte(`"role":"user"`)) {
		t.Fatal(got)
	}
	if got := encodeString(t, testBody("upper", cache, m)); !bytes.Contains([]byte(got), []byte(`"role":"Uuser"`)) {
		t.Fatalf("the other dialect's encoding was reused: %s", got)
	}
}

// TestChatBodyConcurrent: a cache shared by goroutines (which it should
// not be, but may) still gives every request its own messages.
func TestChatBodyConcurrent(t *testing.T) {
	cache := new(llm.EncodeCache)
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			m := llm.Message{Role: "user", Content: string(rune('a' + i))}
			want, _ := json.Marshal(testMessage{Role: "user", Content: m.Content})
			for range 50 {
				if got := encodeString(t, testBody("d", cache, m, m)); !bytes.Contains([]byte(got), want) {
					t.Errorf("%s lacks %s", got, want)
					return
				}
			}
		})
	}
	wg.Wait()
}

// TestChatBodyBadRest: Rest that is not an object with members is an
// error, not a broken body.
func TestChatBodyBadRest(t *testing.T) {
	b := testBody("d", new(llm.EncodeCache), llm.Message{Role: "user"})
	for _, rest := range []any{struct{}{}, 1, nil} {
		b.Rest = rest
		if _, err := b.EncodeBody(); err == nil {
			t.Errorf("Rest %#v: no error", rest)
		}
	}
}

// TestPiecesBody: a pieces body reads back whole through any buffer size,
// and GetBody starts it again.
func TestPiecesBody(t *testing.T) {
	p := Pieces{[]byte("ab"), nil, []byte("c"), []byte(""), []byte("defgh")}
	for _, size := range []int{1, 2, 3, 100} {
		r := &piecesReader{p: p}
		var out []byte
		buf := make([]byte, size)
		for {
			n, err := r.Read(buf)
			out = append(out, buf[:n]...)
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		if string(out) != "abcdefgh" {
			t.Errorf("buffer %d: %q", size, out)
		}
	}
	req, _ := http.NewRequest(http.MethodPost, "http://x/", nil)
	setBody(req, p)
	if req.ContentLength != 8 {
		t.Errorf("ContentLength %d", req.ContentLength)
	}
	for range 2 {
		rc, _ := req.GetBody()
		if b, _ := io.ReadAll(rc); string(b) != "abcdefgh" {
			t.Errorf("GetBody: %q", b)
		}
	}
	empty, _ := http.NewRequest(http.MethodPost, "http://x/", nil)
	setBody(empty, Pieces{nil})
	if empty.Body != http.NoBody || empty.ContentLength != 0 {
		t.Error("an empty body is not NoBody")
	}
}

// TestChatBodyFewPieces: the messages requests promised to keep are sent
// as one piece, so that a body's piece list does not grow with the
// conversation; the bodies are those of the whole request encoded at once.
func TestChatBodyFewPieces(t *testing.T) {
	cache := new(llm.EncodeCache)
	msgs := []llm.Message{{Role: "system", Content: "sys"}, {Role: "user", Content: "task"}}
	for i := range 100 {
		msgs = append(msgs, llm.Message{Role: "assistant", Content: fmt.Sprint("call ", i)}, llm.Message{Role: "tool", Content: "ok"})
		b := testBody("d", cache, msgs...)
		b.ID = uint64(i + 1)
		if i > 0 {
			b.KeptFrom, b.Kept = uint64(i), len(msgs)-3
		}
		p, err := b.EncodeBody()
		if err != nil {
			t.Fatal(err)
		}
		if got, want := p.Bytes(), plainBody(t, msgs); !bytes.Equal(got, want) {
			t.Fatalf("request %d:\n%s\nwant\n%s", i, got, want)
		}
		if len(p) > 8 {
			t.Fatalf("request %d (%d messages): %d pieces", i, len(msgs), len(p))
		}
	}
}

// plainBody is json.Marshal of testBody's request as one struct.
func plainBody(t *testing.T, msgs []llm.Message) []byte {
	t.Helper()
	conv := make([]testMessage, len(msgs))
	for k, m := range msgs {
		conv[k] = testMessage{Role: string(m.Role), Content: m.Content}
	}
	want, err := json.Marshal(struct {
		Model    string        `json:"model"`
		Messages []testMessage `json:"messages"`
		testRest
	}{"m", conv, testRest{Stream: true}})
	if err != nil {
		t.Fatal(err)
	}
	return want
}

// TestChatBodySharedCache: two conversations that share a cache (olly
// gives each run its own, but EncodeCache allows it) each get their own
// messages, though each promises what it kept from its own last request:
// request numbers are the cache's (EncodeCache.NewID), so a promise never
// names the other conversation's request. With numbers each conversation
// counted itself, the second conversation's request 1 passed for the
// first's, and the first's next body carried the second's messages.
func TestChatBodySharedCache(t *testing.T) {
	cache := new(llm.EncodeCache)
	type conv struct {
		name string
		msgs []llm.Message
		last uint64 // the ID of its last request
	}
	convs := []*conv{{name: "a"}, {name: "b"}}
	for step := range 6 {
		for _, c := range convs {
			kept := len(c.msgs) - 1
			if c.msgs == nil {
				c.msgs, kept = []llm.Message{{Role: "system", Content: "sys"}}, 0
			}
			c.msgs = append(c.msgs, llm.Message{Role: "user", Content: fmt.Sprint(c.name, step)})
			b := testBody("d", cache, c.msgs...)
			b.ID = cache.NewID()
			if kept > 0 {
				b.KeptFrom, b.Kept = c.last, kept
			}
			c.last = b.ID
			if got, want := encodeString(t, b), plainBody(t, c.msgs); got != string(want) {
				t.Fatalf("conversation %s, step %d:\n%s\nwant\n%s", c.name, step, got, want)
			}
		}
	}
}

// TestChatBodyEditsDoNotGrowPieces: a kept message that changes and is
// kept again (a result shortened to fit the window, then sent whole)
// does not leave a chunk of its own behind each time: the body stays a
// handful of pieces, and the chunks hold about what they carry. Cutting a
// chunk at the changed message left its head in the list, full-sized, and
// the next freeze began a new 16 KiB chunk: one more piece, and 16 KiB
// more, per edit.
func TestChatBodyEditsDoNotGrowPieces(t *testing.T) {
	cache := new(llm.EncodeCache)
	msgs := []llm.Message{{Role: "system", Content: "sys"}, {Role: "user", Content: "task"}}
	var id uint64
	var held []Pieces
	var heldBytes []string
	for i := range 400 {
		kept := len(msgs) - 1
		if i%2 == 1 {
			// The last message the request before promised (the last
			// frozen) changes: this request promises the ones before it.
			j := len(msgs) - 2
			msgs[j], kept = llm.Message{Role: "tool", Content: fmt.Sprint("shortened ", i)}, j-1
		} else {
			msgs = append(msgs, llm.Message{Role: "tool", Content: fmt.Sprint("result ", i)})
		}
		b := testBody("d", cache, msgs...)
		id++
		b.ID, b.KeptFrom, b.Kept = id, id-1, kept
		p, err := b.EncodeBody()
		if err != nil {
			t.Fatal(err)
		}
		if got, want := p.Bytes(), plainBody(t, msgs); !bytes.Equal(got, want) {
			t.Fatalf("request %d:\n%s\nwant\n%s", i, got, want)
		}
		if len(p) > 8 {
			t.Fatalf("request %d (%d messages): %d pieces", i, len(msgs), len(p))
		}
		if i%50 == 0 {
			held, heldBytes = append(held, p), append(heldBytes, string(p.Bytes()))
		}
	}
	for k, p := range held {
		if string(p.Bytes()) != heldBytes[k] {
			t.Fatalf("body %d changed under later requests", k*50)
		}
	}
	state, release := cache.Hold("d")
	cc := state.(*chatCache)
	release(cc)
	// Each chunk was allocated at 16 KiB or more (a cut one's capacity
	// says less): count them.
	if carried := len(plainBody(t, msgs)); len(cc.frozen) > 1+2*carried/frozenChunk {
		t.Errorf("%d frozen chunks of at least %d bytes for a body of %d", len(cc.frozen), frozenChunk, carried)
	}
}

// TestChatBodyPanicKeepsNoPromise: a request whose encoding stopped half-way
// (its message conversion panicked, and a caller recovered) is not one a
// later promise can name: the cache still held the request before it at the
// positions the panic left, and the next request's kept messages were taken
// from there.
func TestChatBodyPanicKeepsNoPromise(t *testing.T) {
	cache := new(llm.EncodeCache)
	sys := llm.Message{Role: "system", Content: "sys"}
	a, b, c := llm.Message{Role: "user", Content: "a"}, llm.Message{Role: "assistant", Content: "b"}, llm.Message{Role: "user", Content: "c"}
	x, y, z := llm.Message{Role: "assistant", Content: "x"}, llm.Message{Role: "user", Content: "y"}, llm.Message{Role: "user", Content: "z"}
	first := testBody("d", cache, sys, a, b, c)
	first.ID = 1
	_ = encodeString(t, first)

	second := testBody("d", cache, sys, a, x, y)
	second.ID, second.KeptFrom, second.Kept = 2, 1, 1
	conv := second.Message
	second.Message = func(m llm.Message) any {
		if m.Content == "x" {
			panic("conversion failed")
		}
		return conv(m)
	}
	func() {
		defer func() { _ = recover() }()
		_, _ = second.EncodeBody()
		t.Fatal("no panic")
	}()

	msgs := []llm.Message{sys, a, x, y, z}
	third := testBody("d", cache, msgs...)
	third.ID, third.KeptFrom, third.Kept = 3, 2, 3
	if got, want := encodeString(t, third), plainBody(t, msgs); got != string(want) {
		t.Fatalf("after a request that panicked:\n%s\nwant\n%s", got, want)
	}
}

// TestChatBodyChunkBoundaries: messages whose encodings fill a chunk
// exactly, fall a byte short of it or pass it by a byte, or are larger than
// a chunk, freeze into chunks that hold them whole, and the bodies are
// those of the whole request.
func TestChatBodyChunkBoundaries(t *testing.T) {
	// sized is a user message whose encoding in the cache ("," and its
	// JSON) is n bytes.
	sized := func(n int) llm.Message {
		overhead := len(`,{"role":"user","content":""}`)
		return llm.Message{Role: "user", Content: strings.Repeat("x", n-overhead)}
	}
	for _, tc := range []struct {
		name   string
		sizes  []int
		chunks int
	}{
		{"one fills a chunk", []int{frozenChunk, 100}, 2},
		{"two fill a chunk", []int{frozenChunk - 100, 100, 100}, 2},
		{"a byte short", []int{frozenChunk - 100, 99, 100}, 2},
		{"a byte over", []int{frozenChunk - 100, 101, 100}, 2},
		{"larger than a chunk", []int{100, 3 * frozenChunk, 100, frozenChunk + 1}, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cache := new(llm.EncodeCache)
			msgs := []llm.Message{{Role: "system", Content: "sys"}}
			var id uint64
			for _, n := range tc.sizes {
				msgs = append(msgs, sized(n))
				b := testBody("d", cache, msgs...)
				prev := id
				id = cache.NewID()
				b.ID, b.KeptFrom, b.Kept = id, prev, len(msgs)-2
				if got, want := encodeString(t, b), plainBody(t, msgs); got != string(want) {
					t.Fatalf("%d messages: the body differs", len(msgs))
				}
			}
			// The last request keeps them all.
			msgs = append(msgs, llm.Message{Role: "user", Content: "end"})
			b := testBody("d", cache, msgs...)
			b.ID, b.KeptFrom, b.Kept = cache.NewID(), id, len(msgs)-2
			if got, want := encodeString(t, b), plainBody(t, msgs); got != string(want) {
				t.Fatal("the last body differs")
			}
			state, release := cache.Hold("d")
			cc := state.(*chatCache)
			release(cc)
			if len(cc.frozen) != tc.chunks {
				t.Errorf("%d chunks, want %d", len(cc.frozen), tc.chunks)
			}
		})
	}
}
