package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"

	"github.com/olly-agent/olly/internal/llm"
)

// ChatBody is a chat request body of the shape both dialects send,
// {"model":…,"messages":[…],"tools":[…],<Rest's members>}, assembled from
// the encodings of its messages and tools kept in an llm.EncodeCache: each
// message is encoded once per conversation instead of once per request.
// The bytes are those json.Marshal gives for the dialect's whole request
// struct (FuzzChatBody in the dialect packages checks it).
type ChatBody struct {
	// Dialect keys the cache: a cache used by another dialect starts over.
	Dialect  string
	Model    string
	Messages []llm.Message
	Tools    []llm.Tool
	// Message converts a message to the dialect's struct, encoded with
	// json.Marshal.
	Message func(llm.Message) any
	// Rest holds the members after "tools", in order; it must encode as
	// an object with at least one member (both dialects send "stream").
	Rest  any
	Cache *llm.EncodeCache
	// ID, KeptFrom and Kept are the request's (llm.ChatRequest): messages
	// 1 to Kept are request KeptFrom's, not compared again when that was
	// the request the cache encoded last.
	ID, KeptFrom uint64
	Kept         int
}

// chatCache is what a ChatBody keeps in its cache: the last request's
// messages, each with its encoding, and its tools'.
//
// The encodings of messages 1 to nf, which requests promised to keep
// (ChatBody.Kept), are copied into frozen chunks, so that a body is a
// handful of pieces however long the conversation: a piece per chunk of
// frozenChunk bytes instead of one a message (the piece list allocated,
// and the transport's writev iterated, per message). A chunk is
// append-only: a body holds chunk[:n] of the moment, and appending writes
// only past every length handed out, so that the bytes a body holds are
// never written again; a chunk holding a message that changed leaves
// frozen whole (thaw). A frozen message is copied again only after it, a
// message before it, or one in its chunk changed.
type chatCache struct {
	msgs []cachedMessage
	// frozen holds the encodings of messages 1 to nf, one after the other.
	frozen [][]byte
	nf     int
	tools  []llm.Tool
	// toolsEnc is `,"tools":[…]`, nil without tools.
	toolsEnc []byte
	// id is the request encoded last (ChatBody.ID; 0: none or not
	// numbered).
	id uint64
}

type cachedMessage struct {
	m llm.Message // its Images and ToolCalls slices are copies
	// enc is "," followed by the message's JSON; never modified. Nil for
	// a message in frozen, whose encoding ends at end in chunk.
	enc        []byte
	chunk, end int
}

// frozenChunk is the size of a frozen chunk (larger for a larger message).
const frozenChunk = 16 << 10

// errRestNotObject is a programming error: Rest must encode as an object
// with members.
var errRestNotObject = errors.New("chat body: the members after tools do not encode as a non-empty object")

// EncodeBody assembles the body. The pieces it returns are never modified
// afterwards, so a request can still be sending them while the next one is
// built.
func (c *ChatBody) EncodeBody() (Pieces, error) {
	rest, err := json.Marshal(c.Rest)
	if err != nil {
		return nil, err
	}
	if len(rest) < 3 || rest[0] != '{' {
		return nil, errRestNotObject
	}
	model, err := json.Marshal(c.Model)
	if err != nil {
		return nil, err
	}
	cache := c.Cache
	if cache == nil {
		cache = new(llm.EncodeCache)
	}
	state, release := cache.Hold(c.Dialect)
	cc, _ := state.(*chatCache)
	if cc == nil {
		cc = &chatCache{}
	}
	defer func() { release(cc) }()

	if err := cc.messages(c); err != nil {
		return nil, err
	}
	// The head, the system message, frozen, the messages after it, "]",
	// the tools and the rest.
	p := make(Pieces, 0, 6+len(cc.frozen)+len(c.Messages)-cc.nf)
	head := make([]byte, 0, len(`{"model":,"messages":[`)+len(model))
	head = append(append(append(head, `{"model":`...), model...), `,"messages":[`...)
	p = append(p, head)
	p = cc.pieces(p, len(c.Messages))
	p = append(p, []byte("]"))
	if err := cc.toolsPiece(c.Tools, &p); err != nil {
		return nil, err
	}
	rest[0] = ','
	return append(p, rest), nil
}

// messages makes the cache hold the request's messages, encoding those
// that are not the ones kept at their position, and drops what it held
// past the request's last message. The messages the request says it kept
// (ChatBody.Kept) are taken without comparing them, so that a request
// costs what its new messages cost; they are then joined in frozen, and
// sent as one piece.
func (cc *chatCache) messages(c *ChatBody) error {
	// Messages 1 to kept are known to be those kept at their positions
	// (ChatBody.Kept): no comparison.
	kept := 0
	if c.Kept > 0 && c.KeptFrom != 0 && c.KeptFrom == cc.id {
		kept = min(c.Kept, len(c.Messages)-1, len(cc.msgs)-1)
	}
	// The cache holds request c.ID only once every message is in: until
	// then no promise may name it (an error returns half-way, and so does
	// a panic in the dialect's conversion a caller recovers from).
	cc.id = 0
	cc.truncate(len(c.Messages))
	for i := range c.Messages {
		if i != 0 && i <= kept {
			continue
		}
		m := &c.Messages[i]
		if i < len(cc.msgs) && sameMessage(&cc.msgs[i].m, m) {
			continue
		}
		if err := cc.encode(c, i); err != nil {
			cc.truncate(i)
			return err
		}
	}
	cc.freeze(kept)
	cc.id = c.ID
	return nil
}

// pieces appends the encodings of the n messages the cache holds to p.
func (cc *chatCache) pieces(p Pieces, n int) Pieces {
	if n == 0 {
		return p
	}
	p = append(p, cc.msgs[0].enc[1:])
	for _, f := range cc.frozen {
		p = append(p, f[:len(f):len(f)])
	}
	for i := cc.nf + 1; i < n; i++ {
		p = append(p, cc.msgs[i].enc)
	}
	return p
}

// encode encodes message i of the request into the cache, replacing what
// was kept at its position (and taking its chunk out of frozen).
func (cc *chatCache) encode(c *ChatBody, i int) error {
	m := &c.Messages[i]
	b, err := json.Marshal(c.Message(*m))
	if err != nil {
		return err
	}
	enc := append(make([]byte, 0, len(b)+1), ',')
	e := cachedMessage{m: *m, enc: append(enc, b...)}
	e.m.Images, e.m.ToolCalls = slices.Clone(m.Images), slices.Clone(m.ToolCalls)
	if i < len(cc.msgs) {
		cc.thaw(i)
		cc.msgs[i] = e
	} else {
		cc.msgs = append(cc.msgs, e)
	}
	return nil
}

// freeze copies the encodings of messages nf+1 to n into frozen.
func (cc *chatCache) freeze(n int) {
	for i := cc.nf + 1; i <= n; i++ {
		e := &cc.msgs[i]
		last := len(cc.frozen) - 1
		if last < 0 || cap(cc.frozen[last])-len(cc.frozen[last]) < len(e.enc) {
			cc.frozen = append(cc.frozen, make([]byte, 0, max(frozenChunk, len(e.enc))))
			last++
		}
		cc.frozen[last] = append(cc.frozen[last], e.enc...)
		e.enc, e.chunk, e.end = nil, last, len(cc.frozen[last])
	}
	cc.nf = max(cc.nf, n)
}

// thaw takes message i and those after it out of frozen, with the
// messages before it in its chunk: each gets its encoding back (a slice
// of its chunk, which is never written again), and frozen ends with the
// chunk before. The whole chunk goes, not the part from message i: a
// chunk cut there would stay in frozen with no room left, and the next
// freeze begin another, so that a kept message changed again and again
// (a result shortened to fit the window, then sent whole) left a piece
// and a chunk's memory behind each time. Freezing again copies at most a
// chunk's worth of messages before it.
func (cc *chatCache) thaw(i int) {
	if i < 1 || i > cc.nf {
		return
	}
	ci := cc.msgs[i].chunk
	for i > 1 && cc.msgs[i-1].chunk == ci {
		i--
	}
	from, chunk := 0, ci
	for k := i; k <= cc.nf; k++ {
		e := &cc.msgs[k]
		if e.chunk != chunk {
			from, chunk = 0, e.chunk
		}
		e.enc, from = cc.frozen[e.chunk][from:e.end:e.end], e.end
		e.chunk, e.end = 0, 0
	}
	clear(cc.frozen[ci:])
	cc.frozen, cc.nf = cc.frozen[:ci], i-1
}

// truncate forgets the messages from position n on.
func (cc *chatCache) truncate(n int) {
	if n < len(cc.msgs) {
		cc.thaw(max(n, 1))
		clear(cc.msgs[n:])
		cc.msgs = cc.msgs[:n]
	}
}

// toolsPiece appends the tools member, encoded when the tools are not the
// last request's.
func (cc *chatCache) toolsPiece(ts []llm.Tool, p *Pieces) error {
	if len(ts) == 0 {
		return nil
	}
	if cc.toolsEnc == nil || !sameTools(cc.tools, ts) {
		b, err := json.Marshal(Tools(ts))
		if err != nil {
			cc.tools, cc.toolsEnc = nil, nil
			return err
		}
		cc.tools = slices.Clone(ts)
		cc.toolsEnc = append([]byte(`,"tools":`), b...)
	}
	*p = append(*p, cc.toolsEnc)
	return nil
}

// sameMessage reports whether a and b encode the same. Strings and byte
// slices that share memory compare in constant time. A nil byte slice is
// not an empty one: json.Marshal writes null for it, "" for the other.
func sameMessage(a, b *llm.Message) bool {
	if a.Role != b.Role || a.Content != b.Content || a.Thinking != b.Thinking ||
		a.ToolName != b.ToolName || a.ToolCallID != b.ToolCallID ||
		len(a.Images) != len(b.Images) || len(a.ToolCalls) != len(b.ToolCalls) {
		return false
	}
	for i := range a.Images {
		if !bytes.Equal(a.Images[i], b.Images[i]) || (a.Images[i] == nil) != (b.Images[i] == nil) {
			return false
		}
	}
	for i := range a.ToolCalls {
		x, y := &a.ToolCalls[i], &b.ToolCalls[i]
		if x.ID != y.ID || x.Index != y.Index || x.Name != y.Name || x.RawArguments != y.RawArguments ||
			!bytes.Equal(x.Arguments, y.Arguments) || (x.Arguments == nil) != (y.Arguments == nil) {
			return false
		}
	}
	return true
}

// sameTools reports whether two tool lists encode the same.
func sameTools(a, b []llm.Tool) bool {
	return slices.EqualFunc(a, b, func(x, y llm.Tool) bool {
		return x.Name == y.Name && x.Description == y.Description && bytes.Equal(x.Parameters, y.Parameters) &&
			(x.Parameters == nil) == (y.Parameters == nil)
	})
}
