package session

import "github.com/olly-agent/olly/internal/llm"

// The rendering of a conversation is final up to its last assistant
// message: nothing that comes after it changes a message before it (a
// control note or reminder before an assistant message is left out
// whatever follows, and the results of the calls before it were placed
// when it came), nor the assistant message itself. So the conversation
// keeps, per format, the messages rendered up to there (renderCache), and
// a request renders only the entries after its last assistant message:
// the work per iteration does not grow with the history. A compaction, or
// a new image loader, starts the cache over (gen).

// renderCache is the final part of a conversation's rendering in one
// format.
type renderCache struct {
	gen     uint64        // the conversation's gen it was made at
	entries int           // the entries rendered: through an assistant entry, or 0
	msgs    []llm.Message // their messages, final; never modified once appended
}

// RenderMark is what a Render call left in its caller's slice, passed to
// the next call for that slice. The zero mark keeps nothing.
type RenderMark struct {
	conv   *Conversation
	gen    uint64
	format Format
	base   int // the caller's own messages before the conversation's
	final  int // the final messages the slice holds after base
}

// Render is AppendMessages(msgs[:base], f) for a caller that renders the
// conversation into one slice again and again (the agent, once per
// iteration): msgs[:base] are the caller's own messages (the system
// message), and mark is what the last call for msgs returned. The final
// messages that call left in msgs[base:] are kept as they are — the caller
// must not have changed them since, or must pass the zero mark — and only
// the messages after them are rendered. same is how many were kept:
// out[base:base+same] are, value for value, the last call's messages
// there. Reusing msgs, the caller must not still hold its earlier
// contents elsewhere.
func (c *Conversation) Render(msgs []llm.Message, base int, f Format, mark RenderMark) (out []llm.Message, next RenderMark, same int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	rc := c.finalMessages(f)
	if rc == nil {
		return render(c.entries, f, false, c.images, msgs[:base]).out, RenderMark{}, 0
	}
	if mark.conv == c && mark.gen == rc.gen && mark.format == f && mark.base == base &&
		mark.final <= len(rc.msgs) && base+mark.final <= len(msgs) {
		same = mark.final
	}
	out = append(msgs[:base+same], rc.msgs[same:]...)
	r := c.rendererFrom(f, out, rc.entries)
	for i := rc.entries; i < len(c.entries); i++ {
		r.add(i, &c.entries[i])
	}
	r.flush()
	return r.out, RenderMark{conv: c, gen: rc.gen, format: f, base: base, final: len(rc.msgs)}, same
}

// finalMessages brings the format's cache up to the last assistant
// message and returns it; nil for a format it does not cache. An image
// that could not be loaded does not stop it: the note that replaces it
// stays until the loader changes, which starts the cache over (images.go).
// Called with c.mu held.
func (c *Conversation) finalMessages(f Format) *renderCache {
	if f != FormatNative && f != FormatText {
		return nil
	}
	rc := &c.rc[f]
	if rc.gen != c.gen || rc.entries > c.lastAssistant {
		clear(rc.msgs)
		*rc = renderCache{gen: c.gen}
	}
	if rc.entries == c.lastAssistant {
		return rc
	}
	r := c.rendererFrom(f, rc.msgs, rc.entries)
	for i := rc.entries; i < c.lastAssistant; i++ {
		r.add(i, &c.entries[i])
	}
	rc.msgs, rc.entries = r.out, c.lastAssistant
	return rc
}

// rendererFrom returns a renderer in the state a full rendering is in
// before entry from, which is 0 or follows an assistant entry: everything
// before it flushed, the assistant's calls (native) waiting for results.
func (c *Conversation) rendererFrom(f Format, out []llm.Message, from int) *renderer {
	r := &renderer{format: f, out: out, pendFrom: -1, lastAssistant: c.lastAssistant - 1, images: c.images}
	if from > 0 && f == FormatNative {
		r.openFrom = from - 1
		r.open = append(r.open, c.entries[from-1].calls...)
	}
	return r
}
