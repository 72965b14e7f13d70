package toolcall

// Filter separates a streamed response into text to display and tool calls.
// Feed it each text delta as it arrives; it returns only what is safe to
// show now. It never returns any part of call markup, nor a trailing piece
// of text that may still become markup or [TASK_COMPLETE] ("<tool_c",
// "[TOOL", "```", a '{' that may open a call of a known tool): that text is
// held until it is decided. The concatenation of everything Write and Flush
// return equals Strip of the whole text, and Calls equals Extract, however
// the text was split.
//
// The work is linear in the total input: each delta continues from where
// the previous one stopped. A Filter keeps only the text it may still need
// (from the start of an open call or candidate, or a few bytes of prose);
// call offsets refer to the whole text. It is not safe for concurrent use.
type Filter struct {
	s       *scanner
	flushed bool
}

// NewFilter returns a Filter for one response.
func NewFilter(opts Options) *Filter {
	return &Filter{s: newScanner(opts, true)}
}

// Write adds delta to the response and returns the text that can be
// displayed now. After Flush it does nothing.
func (f *Filter) Write(delta string) (visible string) {
	if f.flushed || delta == "" {
		return ""
	}
	s := f.s
	s.compact()
	if s.m == nil && s.pos == len(s.buf) && len(s.rm.held) == 0 && indexTrigger(delta) < 0 {
		// Nothing is pending and no byte of delta can start markup or a
		// marker: it is prose, shown as it came. This is what run would
		// conclude, without its calls; most deltas take this path.
		s.buf = append(s.buf, delta...)
		s.pos = len(s.buf)
		return delta
	}
	s.buf = append(s.buf, delta...)
	s.run()
	// Shown exactly as it came (say, a trigger byte that turned out to be
	// prose): hand back the caller's string instead of allocating a copy.
	if string(s.out) == delta {
		s.out = s.out[:0]
		return delta
	}
	return f.take()
}

// Flush ends the response: a call cut off by the end of the text is
// repaired, and held text that turned out not to be markup is returned.
func (f *Filter) Flush() (visible string) {
	if f.flushed {
		return ""
	}
	f.flushed = true
	f.s.finish()
	return f.take()
}

func (f *Filter) take() string {
	if len(f.s.out) == 0 {
		return ""
	}
	v := string(f.s.out)
	f.s.out = f.s.out[:0]
	return v
}

// InCall reports whether a tool call is being written now: the text ends
// inside call markup (for bare JSON and fences, once the tool name has been
// read and is known). The UI shows progress instead of the frozen text.
func (f *Filter) InCall() bool {
	return f.s.m != nil && f.s.m.inCall()
}

// PendingName returns the name of the tool whose call is being written, once
// it has been read, or "".
func (f *Filter) PendingName() string {
	if !f.InCall() {
		return ""
	}
	return f.s.m.name()
}

// Calls returns the calls completed so far. After Flush it equals Extract
// of the whole text. While streaming, bare calls found earlier disappear
// from it once a tagged call appears (tagged calls take precedence).
func (f *Filter) Calls() []Call {
	return f.s.calls()
}

// TaskComplete reports whether the displayed text contained
// [TASK_COMPLETE] (which was removed from it). Text inside tool calls — a
// file being written that mentions the signal — does not count.
func (f *Filter) TaskComplete() bool {
	return f.s.rm.sawTask
}
