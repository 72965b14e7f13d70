package toolcall

import (
	"bytes"
	"strings"
)

// Literal markers the scanner looks for in prose.
const (
	tagOpen       = "<tool_call>"
	tagClose      = "</tool_call>"
	tagFunction   = "<function="
	bracketMarker = "[TOOL_CALLS]"
	fenceTicks    = "```"
)

// lookCap bounds how far the scanner looks ahead or back over whitespace
// (fence indentation, a fence's info string, the space between '[' and '{').
// Beyond it the text is taken as prose, which keeps every decision local, so
// streaming never re-reads more than this per delta.
const lookCap = 64

// outcome is how a markup parser left the text.
type outcome uint8

const (
	needMore outcome = iota // wants more input
	consumed                // ended; the text up to the returned offset was markup
	released                // a candidate that turned out to be prose
)

// markup parses one piece of call markup starting at a trigger in the prose.
type markup interface {
	// advance continues from where it stopped. At end of input (s.eof) it
	// never returns needMore. For consumed the offset is the end of the
	// markup; for released it is the offset up to which no new candidate
	// may start (where the candidate stopped being one).
	advance(s *scanner) (outcome, int)
	// start is the offset of the markup's first byte.
	start() int
	// inCall reports whether the markup is known to be a call.
	inCall() bool
	// name is the tool name, once known.
	name() string
}

// scanner is the single state machine behind Extract, Strip and Filter:
// Extract and Strip feed it the whole text at once, Filter feeds it deltas.
// Because both paths run the same code, streaming and one-shot parsing agree
// by construction. It keeps the text from the start of any open markup, so
// that a candidate which turns out to be prose can be re-read.
type scanner struct {
	known  map[string]bool
	prefer Format                       // Options.Prefer
	params map[string]map[string]string // Options.Params
	buf    []byte
	base   int  // offset in the whole text of buf[0]
	pos    int  // next byte of prose to examine
	eof    bool // no more input will come
	// noCand is the offset before which '{', '[{' and ```json fences do not
	// start candidates: text a released candidate covered is prose, and is
	// re-read only for tags so that "<tool_call>" cannot hide inside it.
	noCand  int
	inFence bool // inside a code fence that is prose
	m       markup

	tagged []Call // <tool_call>, <function=…>, [TOOL_CALLS]
	bare   []Call // bare JSON and ```json fences

	keepProse bool
	rm        remover
	out       []byte // prose after marker removal, not yet handed out

	compactMin int // compact only when at least this many bytes can go
}

func newScanner(opts Options, keepProse bool) *scanner {
	return &scanner{known: opts.Known, prefer: opts.Prefer, params: opts.Params, keepProse: keepProse, rm: newDisplayRemover(), compactMin: 4096}
}

// paramType is the schema type of a tool's parameter (Options.Params), or
// "" when unknown.
func (s *scanner) paramType(tool, param string) string {
	return s.params[strings.TrimSpace(tool)][param]
}

// run advances as far as the input allows.
func (s *scanner) run() {
	for {
		if s.m != nil {
			out, end := s.m.advance(s)
			switch out {
			case needMore:
				return
			case consumed:
				s.pos, s.m = end, nil
			case released:
				s.pos = s.m.start()
				s.noCand = max(s.noCand, end, s.pos+1)
				s.m = nil
			}
			continue
		}
		if !s.prose() {
			return
		}
	}
}

// finish ends the input: open markup is concluded (repairing cut-off calls)
// and held text is released.
func (s *scanner) finish() {
	s.eof = true
	s.run()
	if s.keepProse {
		s.out = s.rm.flush(s.out)
	}
}

func (s *scanner) emit(from, to int) {
	if s.keepProse && to > from {
		s.out = s.rm.push(s.out, s.buf[from:to])
	}
}

// emitPlain emits prose that holds no trigger byte, hence no byte that can
// start a marker: unless the remover holds a partial marker that it may
// continue, it goes straight out.
func (s *scanner) emitPlain(from, to int) {
	if s.keepProse && to > from && len(s.rm.held) == 0 {
		s.out = append(s.out, s.buf[from:to]...)
		return
	}
	s.emit(from, to)
}

// compact drops text that will not be read again: everything before the
// prose cursor except the bytes fence detection looks back at. It runs only
// between markups (whose offsets point into buf) and only when it halves the
// buffer, so its copying is amortised; a long stream then works in a small
// buffer instead of growing one as large as the response.
func (s *scanner) compact() {
	shift := s.pos - (lookCap + 1)
	if s.m != nil || shift <= 0 || shift < s.compactMin || shift < len(s.buf)/2 {
		return
	}
	n := copy(s.buf, s.buf[shift:])
	s.buf = s.buf[:n]
	s.base += shift
	s.pos -= shift
	s.noCand = max(0, s.noCand-shift)
}

// record adds the calls of one markup, spanning [from, to) of buf.
func (s *scanner) record(calls []Call, from, to int) {
	for i := range calls {
		calls[i].Start, calls[i].End = s.base+from, s.base+to
		if calls[i].Format == FormatBare || calls[i].Format == FormatFence {
			s.bare = append(s.bare, calls[i])
		} else {
			s.tagged = append(s.tagged, calls[i])
		}
	}
}

// calls returns the calls found so far: the tagged ones if there are any,
// else the bare ones (seed: the bare fallback applies only when the primary
// formats found nothing) — both, in text order, for a model whose dialect
// is bare JSON.
func (s *scanner) calls() []Call {
	src := s.tagged
	switch {
	case len(src) == 0:
		src = s.bare
	case s.prefer == FormatBare && len(s.bare) > 0:
		src = mergeCalls(s.tagged, s.bare)
	}
	if len(src) == 0 {
		return nil
	}
	out := make([]Call, len(src))
	copy(out, src)
	for i := range out {
		out[i].Index = i
	}
	return out
}

// mergeCalls merges two lists of calls, each in text order, into one.
func mergeCalls(a, b []Call) []Call {
	out := make([]Call, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		if b[0].Start < a[0].Start {
			out, b = append(out, b[0]), b[1:]
		} else {
			out, a = append(out, a[0]), a[1:]
		}
	}
	return append(append(out, a...), b...)
}

// isTrigger marks the bytes at which markup may start. It is never
// written: a lookup table, faster than bytes.IndexAny, which builds its set
// on every call.
var isTrigger = [256]bool{'<': true, '[': true, '{': true, '`': true}

// indexTrigger returns the offset of the first trigger byte in b, or -1.
func indexTrigger[T string | []byte](b T) int {
	for i := 0; i < len(b); i++ {
		if isTrigger[b[i]] {
			return i
		}
	}
	return -1
}

// prose emits prose up to the next trigger and acts on it. It reports false
// when it needs more input.
func (s *scanner) prose() bool {
	i := s.pos
	k := indexTrigger(s.buf[i:])
	if k < 0 {
		s.emitPlain(i, len(s.buf))
		s.pos = len(s.buf)
		return false
	}
	j := i + k
	s.emitPlain(i, j)
	s.pos = j
	var n int
	var m markup
	switch s.buf[j] {
	case '<':
		n, m = s.angle(j)
	case '[':
		n, m = s.bracket(j)
	case '{':
		n, m = s.brace(j)
	default:
		n, m = s.backtick(j)
	}
	switch {
	case m != nil:
		s.m = m
	case n > 0:
		s.emit(j, j+n)
		s.pos = j + n
	case n < 0: // markup with no call: skip it
		s.pos = j - n
	default:
		return false
	}
	return true
}

// The trigger handlers return n > 0 for n bytes of prose, n < 0 for -n bytes
// of markup to drop, a markup to start, or 0 and nil to wait for input.

// angleTrigger is markup that starts with '<'.
type angleTrigger struct {
	lit   string
	start func(j int) markup // nil: a stray token, dropped
}

// angleTriggers are tried in order at each '<' in the prose.
var angleTriggers = buildAngleTriggers()

func buildAngleTriggers() []angleTrigger {
	t := []angleTrigger{
		{tagOpen, func(j int) markup { return newXML(j) }},
		{tagClose, nil},
		{tagFunction, func(j int) markup { return newStandaloneFunc(j) }},
		{tagFunctionCalls, func(j int) markup { return newInvoke(j, true) }},
		{tagInvoke + " name=", nil}, // decided by invokeStart
		{tagFunctionCallsEnd, nil},
	}
	for _, d := range sectionDialects {
		t = append(t,
			angleTrigger{d.begin, func(j int) markup { return newSection(d, j, d.begin) }},
			angleTrigger{d.callBegin, func(j int) markup { return newSection(d, j, d.callBegin) }},
			angleTrigger{d.end, nil},
			angleTrigger{d.callEnd, nil},
		)
	}
	return t
}

// invokeStart starts an <invoke name=…> without <function_calls> only once
// its tag reads as one; otherwise the '<' is prose.
func (s *scanner) invokeStart(j int) (int, markup) {
	limit := min(len(s.buf), j+maxNameLen+32)
	k := bytes.IndexByte(s.buf[j:limit], '>')
	switch {
	case k < 0 && limit == len(s.buf) && !s.eof:
		return 0, nil
	case k < 0:
		return 1, nil
	}
	if _, ok := nameAttr(s.buf[j : j+k]); !ok {
		return 1, nil
	}
	return 0, newInvoke(j, false)
}

func (s *scanner) angle(j int) (int, markup) {
	wait := false
	for _, t := range angleTriggers {
		full, partial := matchLit(s.buf, j, t.lit)
		switch {
		case full && t.lit == tagInvoke+" name=":
			return s.invokeStart(j)
		case full && t.start == nil:
			return -len(t.lit), nil // a stray closing token
		case full:
			return 0, t.start(j)
		}
		wait = wait || partial
	}
	if wait && !s.eof {
		return 0, nil
	}
	return 1, nil
}

// brace starts a bare candidate at '{' when what follows can begin a call
// object: a quoted member name. Prose braces ("{x}", "{\n\tif") are
// decided here without allocating a parser.
func (s *scanner) brace(j int) (int, markup) {
	if !s.candidates(j) {
		return 1, nil
	}
	k := j + 1
	for k < len(s.buf) && k-j <= lookCap && isSpace(s.buf[k]) {
		k++
	}
	if k == len(s.buf) && !s.eof {
		return 0, nil
	}
	if k < len(s.buf) && s.buf[k] == typoLead && len(s.buf)-k < 3 && !s.eof {
		return 0, nil // a typographic quote, perhaps
	}
	if k < len(s.buf) && (s.buf[k] == '"' || s.buf[k] == '\'' || typoQuote(s.buf[k:])) {
		return 0, newBare(s, j, false)
	}
	return 1, nil
}

func (s *scanner) bracket(j int) (int, markup) {
	full, partial := matchLit(s.buf, j, bracketMarker)
	if full {
		return 0, newBracket(j)
	}
	if partial && !s.eof {
		return 0, nil
	}
	if s.candidates(j) {
		k := j + 1
		for k < len(s.buf) && k-j <= lookCap && isSpace(s.buf[k]) {
			k++
		}
		if k == len(s.buf) && !s.eof {
			return 0, nil
		}
		if k < len(s.buf) && s.buf[k] == '{' {
			return 0, newBare(s, j, true)
		}
	}
	return 1, nil
}

// backtick handles a run of backticks: code fences, which open and close at
// the start of a line.
func (s *scanner) backtick(j int) (int, markup) {
	run := j
	for run < len(s.buf) && s.buf[run] == '`' {
		run++
	}
	if !s.lineStart(j) {
		return run - j, nil
	}
	if run == len(s.buf) && !s.eof {
		return 0, nil
	}
	if run-j < 3 {
		return run - j, nil
	}
	line, nl, decided := s.lineRest(run)
	if !decided && !s.eof {
		return 0, nil
	}
	if s.inFence {
		if len(bytes.TrimSpace(line)) == 0 {
			s.inFence = false
		}
		return run - j, nil
	}
	whole := nl || run+len(line) == len(s.buf) // not cut at lookCap
	if whole && nl && isToolCodeInfo(line) {
		return 0, newToolCode(j, run+len(line)+1)
	}
	if whole && nl && s.prefer == FormatToolCode && s.candidates(j) && isPythonInfo(line) {
		return 0, newPyFence(j, run+len(line)+1)
	}
	if s.candidates(j) && whole && callFenceInfo(line) {
		body := run + len(line)
		if nl {
			body++
		}
		return 0, newFence(s, j, body)
	}
	s.inFence = true
	return run - j, nil
}

// lineRest returns the rest of the line from i (at most lookCap bytes),
// whether a newline ends it, and whether it is decided: it ends in a
// newline, is longer than lookCap, or, inside a prose fence, holds something
// other than spaces (so it cannot close the fence).
func (s *scanner) lineRest(i int) (line []byte, nl, decided bool) {
	rest := s.buf[i:]
	if n := bytes.IndexByte(rest[:min(len(rest), lookCap+1)], '\n'); n >= 0 {
		return rest[:n], true, true
	}
	if len(rest) > lookCap {
		return rest[:lookCap], false, true
	}
	return rest, false, s.inFence && len(bytes.TrimSpace(rest)) > 0
}

// callFenceInfo reports whether a fence's info string allows it to hold a
// call: no language, or one that says JSON or tool call.
func callFenceInfo(line []byte) bool {
	switch string(bytes.ToLower(bytes.TrimSpace(line))) {
	case "", "json", "jsonc", "json5", "tool_call", "tool_calls", "tool":
		return true
	}
	return false
}

// lineStart reports whether only spaces or tabs precede j on its line.
func (s *scanner) lineStart(j int) bool {
	k := j - 1
	for k >= 0 && j-k <= lookCap && (s.buf[k] == ' ' || s.buf[k] == '\t') {
		k--
	}
	return k < 0 || s.buf[k] == '\n'
}

// candidates reports whether bare JSON or a ```json fence at j may be a call.
func (s *scanner) candidates(j int) bool {
	return len(s.known) > 0 && !s.inFence && j >= s.noCand
}

// matchLit reports whether buf[i:] starts with lit (full), or is a proper
// prefix of lit that more input could complete (partial).
func matchLit(buf []byte, i int, lit string) (full, partial bool) {
	n := len(buf) - i
	if n >= len(lit) {
		return string(buf[i:i+len(lit)]) == lit, false
	}
	return false, string(buf[i:]) == lit[:n]
}

// skipSpace returns the offset of the first non-space byte at or after i.
func skipSpace(buf []byte, i int) int {
	for i < len(buf) && isSpace(buf[i]) {
		i++
	}
	return i
}
