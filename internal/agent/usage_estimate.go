package agent

import (
	"unsafe"

	"github.com/olly-agent/olly/internal/llm"
)

// Token estimation. The real counts come from the server after each
// request (prompt_eval_count, eval_count); before the first request of a
// turn, for the category breakdown, and for the compaction threshold
// between requests, olly estimates. The seed used words × 1.3, which
// undercounts code badly: a BPE tokenizer makes most punctuation its own
// token, and `if err != nil {` is 3 words but 6 tokens. estimateTokens
// instead walks the text once and counts what BPE vocabularies (Llama 3,
// Qwen, cl100k) typically make of each run of characters:
//
//   - a run of letters is one token per 7 letters started ("the" 1,
//     "function" 2, "estimateTokensByCategory" 4);
//   - a run of digits is one token per 3 digits (numbers are split in
//     groups of up to three);
//   - a run of ASCII punctuation is one token per 2 characters (`!=`,
//     `("`, `},` are single tokens; `));` is two);
//   - each non-ASCII character is one token (CJK, emoji; accented letters
//     inside a word are counted high, which errs on the safe side);
//   - one space before a word is part of the word's token; longer runs of
//     spaces, and any whitespace containing a line break (a newline and the
//     next line's indentation), are one token;
//   - each message costs 4 tokens of chat-template framing.
//
// It is a heuristic, a few tens of percent off for unusual text; the agent
// calibrates it with the server's real count after every request (see
// tokenBudget), so only the first request of a turn relies on it alone.
// BenchmarkEstimateRequest measures it on a 200-message history.

// messageOverhead is the chat-template framing of one message (role
// markers, separators).
const messageOverhead = 4

// Character classes for estimateTokens.
const (
	clsOther  = iota // ASCII punctuation and symbols
	clsLetter        // A-Z a-z _
	clsDigit         // 0-9
	clsSpace         // space, tab
	clsBreak         // \n \r \v \f
	clsHigh          // a byte of a non-ASCII character
)

// byteClass classifies every byte value; built at compile time, so there
// is no package state to initialise.
var byteClass = func() (t [256]uint8) {
	for c := 0; c < 256; c++ {
		switch {
		case c >= 0x80:
			t[c] = clsHigh
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '_':
			t[c] = clsLetter
		case c >= '0' && c <= '9':
			t[c] = clsDigit
		case c == ' ' || c == '\t':
			t[c] = clsSpace
		case c == '\n' || c == '\r' || c == '\v' || c == '\f':
			t[c] = clsBreak
		default:
			t[c] = clsOther
		}
	}
	return t
}()

// estimateTokens estimates the number of tokens of s (see above).
func estimateTokens(s string) int {
	n := 0
	for i := 0; i < len(s); {
		c := byteClass[s[i]]
		j := i + 1
		switch c {
		case clsLetter:
			for j < len(s) && byteClass[s[j]] == clsLetter {
				j++
			}
			n += 1 + (j-i-1)/7
		case clsDigit:
			for j < len(s) && byteClass[s[j]] == clsDigit {
				j++
			}
			n += (j - i + 2) / 3
		case clsOther:
			for j < len(s) && byteClass[s[j]] == clsOther {
				j++
			}
			n += (j - i + 1) / 2
		case clsHigh:
			// One per character: count lead bytes, not continuation bytes.
			if s[i]&0xC0 != 0x80 {
				n++
			}
		default: // whitespace
			brk := c == clsBreak
			for j < len(s) && (byteClass[s[j]] == clsSpace || byteClass[s[j]] == clsBreak) {
				brk = brk || byteClass[s[j]] == clsBreak
				j++
			}
			// A single space joins the next word's token.
			if brk || j-i > 1 {
				n++
			}
		}
		i = j
	}
	return n
}

// estimateMessage estimates one message: its content, its tool calls and
// the framing. c counts each string once (nil: every time).
func estimateMessage(c *tokenCache, m *llm.Message) int {
	n := messageOverhead + c.tokens(m.Content)
	for _, tc := range m.ToolCalls {
		n += estimateTokens(tc.Name) + c.bytes(tc.Arguments) + messageOverhead
	}
	return n
}

// estimateTools estimates the tool definitions a native request carries
// (the server renders them into the prompt as JSON).
func estimateTools(c *tokenCache, specs []llm.Tool) int {
	n := 0
	for _, s := range specs {
		n += estimateTokens(s.Name) + c.tokens(s.Description) + c.bytes(s.Parameters) + messageOverhead
	}
	return n
}

// tokenCache makes the estimate incremental: each string a request carries
// (a message's content, a call's arguments, a tool's schema) is counted
// once, the first time a request carries it, and found again by identity —
// where its bytes are and how many — in the next requests, which carry the
// same strings: the conversation is rendered from the same stored entries
// every iteration. A string that changed (a compaction replaced messages,
// fit.go shortened a result, a packet was composed anew) is a new string,
// counted when first seen; strings no request carried for two requests are
// dropped (sweep). An entry keeps its string, so its bytes cannot be freed
// and reused by another string while the entry exists.
type tokenCache struct {
	m   map[tokenKey]tokenEntry
	gen uint32
}

type tokenKey struct {
	p *byte
	n int
}

type tokenEntry struct {
	s      string // pins the bytes (and, for []byte, what was counted)
	tokens int
	gen    uint32 // the last request that carried it
}

// minCachedBytes: shorter strings are counted each time (cheaper than the
// map).
const minCachedBytes = 64

// tokens is estimateTokens(s), counted once per string.
func (c *tokenCache) tokens(s string) int {
	if c == nil || len(s) < minCachedBytes {
		return estimateTokens(s)
	}
	k := tokenKey{unsafe.StringData(s), len(s)}
	if e, ok := c.m[k]; ok {
		if e.gen != c.gen {
			e.gen = c.gen
			c.m[k] = e
		}
		return e.tokens
	}
	if c.m == nil {
		c.m = map[tokenKey]tokenEntry{}
	}
	n := estimateTokens(s)
	c.m[k] = tokenEntry{s: s, tokens: n, gen: c.gen}
	return n
}

// bytes is tokens for a byte slice (tool-call arguments, schemas), which
// the agent never changes once a call is recorded: an entry made from a
// slice whose bytes then changed would be stale, so the entry keeps its own
// copy and a hit compares it.
func (c *tokenCache) bytes(b []byte) int {
	if c == nil || len(b) < minCachedBytes {
		// Counted in place: string(b) copied every short argument
		// object of every request.
		return estimateTokens(unsafe.String(unsafe.SliceData(b), len(b)))
	}
	k := tokenKey{&b[0], len(b)}
	if e, ok := c.m[k]; ok && e.s == string(b) {
		if e.gen != c.gen {
			e.gen = c.gen
			c.m[k] = e
		}
		return e.tokens
	}
	if c.m == nil {
		c.m = map[tokenKey]tokenEntry{}
	}
	s := string(b)
	n := estimateTokens(s)
	c.m[k] = tokenEntry{s: s, tokens: n, gen: c.gen}
	return n
}

// sweep ends a request: strings neither it nor the one before carried are
// dropped.
func (c *tokenCache) sweep() {
	if c == nil {
		return
	}
	for k, e := range c.m {
		if c.gen-e.gen > 1 {
			delete(c.m, k)
		}
	}
	c.gen++
}
