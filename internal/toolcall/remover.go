package toolcall

import "strings"

// taskComplete is the control signal with which the model says it is done.
const taskComplete = "[TASK_COMPLETE]"

// marker is a string removed from displayed text.
type marker struct {
	text string
	fold bool // compare case-insensitively
}

// displayMarkers are removed from prose after call markup is gone: the
// completion signal, and call tags that only appear when removing a call
// joined the text around it ("<tool" + call + "_call>").
var displayMarkers = buildDisplayMarkers()

func buildDisplayMarkers() []marker {
	ms := []marker{
		{taskComplete, true},
		{tagOpen, false},
		{tagClose, false},
		{bracketMarker, false},
		{tagFunctionCalls, false},
		{tagFunctionCallsEnd, false},
	}
	for _, d := range sectionDialects {
		for _, t := range [...]string{d.begin, d.end, d.callBegin, d.sep, d.callEnd} {
			ms = append(ms, marker{t, false})
		}
	}
	return ms
}

// remover deletes markers from a stream of text, holding back only what may
// still become a marker. Deleting one marker can join its neighbours into
// another ("[TASK[TASK_COMPLETE]_COMPLETE]"), so it works like a stack: each
// byte is pushed, and a marker completed at the top is popped. Every marker
// starts with '[' or '<' and has those bytes nowhere else, so the held text
// splits at them into pieces, each a proper prefix of some marker; when a
// piece stops being one, nothing held can become a marker any more and all
// of it is released. Each byte is pushed and released once: linear time.
type remover struct {
	markers []marker
	opener  [256]bool // first bytes of the markers
	held    []byte
	starts  []int // offsets in held where pieces start
	sawTask bool  // a [TASK_COMPLETE] was removed
}

func newDisplayRemover() remover { return newRemover(displayMarkers) }

func newRemover(ms []marker) remover {
	r := remover{markers: ms}
	for _, m := range ms {
		r.opener[m.text[0]] = true
	}
	return r
}

// push appends to out the text that b releases.
func (r *remover) push(out, b []byte) []byte {
	for i := 0; i < len(b); {
		if len(r.held) == 0 {
			k := i
			for k < len(b) && !r.opener[b[k]] {
				k++
			}
			out = append(out, b[i:k]...)
			if i = k; i == len(b) {
				return out
			}
		}
		c := b[i]
		i++
		if r.opener[c] {
			r.starts = append(r.starts, len(r.held))
			r.held = append(r.held, c)
			continue
		}
		r.held = append(r.held, c)
		last := r.starts[len(r.starts)-1]
		switch m, full := r.classify(r.held[last:]); {
		case full:
			r.sawTask = r.sawTask || m.text == taskComplete
			r.held = r.held[:last]
			r.starts = r.starts[:len(r.starts)-1]
		case m == nil:
			out = append(out, r.held...)
			r.held = r.held[:0]
			r.starts = r.starts[:0]
		}
	}
	return out
}

// classify returns the marker piece is, or a marker it is a proper prefix
// of, or nil.
func (r *remover) classify(piece []byte) (m *marker, full bool) {
	for i := range r.markers {
		mk := &r.markers[i]
		if len(piece) > len(mk.text) || mk.text[0] != piece[0] {
			continue
		}
		t := mk.text[:len(piece)]
		if string(piece) == t || (mk.fold && strings.EqualFold(string(piece), t)) {
			return mk, len(piece) == len(mk.text)
		}
	}
	return nil, false
}

// flush ends the stream. A held tail that begins [TASK_COMPLETE] is dropped
// (seed: strip a trailing partial prefix, since the signal may have been cut
// off); the rest is released.
func (r *remover) flush(out []byte) []byte {
	for len(r.starts) > 0 {
		last := r.starts[len(r.starts)-1]
		if !hasFoldPrefix(taskComplete, r.held[last:]) {
			break
		}
		r.held = r.held[:last]
		r.starts = r.starts[:len(r.starts)-1]
	}
	out = append(out, r.held...)
	r.held = r.held[:0]
	r.starts = r.starts[:0]
	return out
}

// hasFoldPrefix reports whether p is a prefix of s, ignoring case.
func hasFoldPrefix(s string, p []byte) bool {
	return len(p) <= len(s) && strings.EqualFold(s[:len(p)], string(p))
}

// StripTaskComplete removes every [TASK_COMPLETE] from s, in any case, and a
// trailing partial prefix of it such as "[TASK": the signal is for the
// agent, never for display, and while tokens stream its start arrives
// before its end. Removal is repeated until none is left, so
// "[TASK[TASK_COMPLETE]_COMPLETE]" leaves nothing.
func StripTaskComplete(s string) string {
	if strings.IndexByte(s, '[') < 0 {
		return s
	}
	r := newRemover([]marker{{taskComplete, true}})
	out := r.push(make([]byte, 0, len(s)), []byte(s))
	return string(r.flush(out))
}

// HasTaskComplete reports whether s contains [TASK_COMPLETE], in any case.
func HasTaskComplete(s string) bool {
	for i := 0; ; {
		k := strings.IndexByte(s[i:], '[')
		if k < 0 {
			return false
		}
		i += k
		if len(s)-i >= len(taskComplete) && strings.EqualFold(s[i:i+len(taskComplete)], taskComplete) {
			return true
		}
		i++
	}
}
