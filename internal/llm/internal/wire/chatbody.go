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
type chatCache struct {
	msgs  []cachedMessage
	tools []llm.Tool
	// toolsEnc is `,"tools":[…]`, nil without tools.
	toolsEnc []byte
	// id is the request encoded last (ChatBody.ID; 0: none or not
	// numbered).
	id uint64
}

type cachedMessage struct {
	m llm.Message // its Images and ToolCalls slices are copies
	// enc is "," followed by the message's JSON; never modified.
	enc []byte
}

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

	p := make(Pieces, 0, len(c.Messages)+4)
	head := make([]byte, 0, len(`{"model":,"messages":[`)+len(model))
	head = append(append(append(head, `{"model":`...), model...), `,"messages":[`...)
	p = append(p, head)
	if err := cc.messages(c, &p); err != nil {
		return nil, err
	}
	p = append(p, []byte("]"))
	if err := cc.toolsPiece(c.Tools, &p); err != nil {
		return nil, err
	}
	rest[0] = ','
	return append(p, rest), nil
}

// messages appends the messages' encodings to p, encoding those that are
// not the ones kept at their position, and drops what the cache held past
// the request's last message. The messages the request says it kept
// (ChatBody.Kept) are taken without comparing them, so that a request
// costs what its new messages cost, but for one piece per message.
func (cc *chatCache) messages(c *ChatBody, p *Pieces) error {
	// Messages 1 to kept are known to be those kept at their positions
	// (ChatBody.Kept): no comparison.
	kept := 0
	if c.Kept > 0 && c.KeptFrom != 0 && c.KeptFrom == cc.id {
		kept = min(c.Kept, len(c.Messages)-1, len(cc.msgs)-1)
	}
	cc.id = c.ID
	for i := range c.Messages {
		m := &c.Messages[i]
		if (i == 0 || i > kept) && (i >= len(cc.msgs) || !sameMessage(&cc.msgs[i].m, m)) {
			b, err := json.Marshal(c.Message(*m))
			if err != nil {
				cc.truncate(i)
				cc.id = 0
				return err
			}
			enc := append(make([]byte, 0, len(b)+1), ',')
			e := cachedMessage{m: *m, enc: append(enc, b...)}
			e.m.Images, e.m.ToolCalls = slices.Clone(m.Images), slices.Clone(m.ToolCalls)
			if i < len(cc.msgs) {
				cc.msgs[i] = e
			} else {
				cc.msgs = append(cc.msgs, e)
			}
		}
		enc := cc.msgs[i].enc
		if i == 0 {
			enc = enc[1:]
		}
		*p = append(*p, enc)
	}
	cc.truncate(len(c.Messages))
	return nil
}

// truncate forgets the messages from position n on.
func (cc *chatCache) truncate(n int) {
	if n < len(cc.msgs) {
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
// slices that share memory compare in constant time.
func sameMessage(a, b *llm.Message) bool {
	if a.Role != b.Role || a.Content != b.Content || a.Thinking != b.Thinking ||
		a.ToolName != b.ToolName || a.ToolCallID != b.ToolCallID ||
		len(a.Images) != len(b.Images) || len(a.ToolCalls) != len(b.ToolCalls) {
		return false
	}
	for i := range a.Images {
		if !bytes.Equal(a.Images[i], b.Images[i]) {
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
