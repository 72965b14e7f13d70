package agent

import (
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
// the framing.
func estimateMessage(m *llm.Message) int {
	n := messageOverhead + estimateTokens(m.Content)
	for _, c := range m.ToolCalls {
		n += estimateTokens(c.Name) + estimateTokens(string(c.Arguments)) + messageOverhead
	}
	return n
}

// estimateTools estimates the tool definitions a native request carries
// (the server renders them into the prompt as JSON).
func estimateTools(specs []llm.Tool) int {
	n := 0
	for _, s := range specs {
		n += estimateTokens(s.Name) + estimateTokens(s.Description) + estimateTokens(string(s.Parameters)) + messageOverhead
	}
	return n
}
