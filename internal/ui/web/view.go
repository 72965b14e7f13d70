package web

import (
	"time"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/timeline"
)

// TypeTimeline is the frame that carries the timeline as HTML: the page's
// one addition to RPC mode's frames.
const TypeTimeline = "web_timeline"

// TimelineFrame carries the items of a session's timeline that changed, as
// HTML fragments to put in place. Reset replaces the whole timeline (the
// connection's first frame for a session, and after a switch or branch).
type TimelineFrame struct {
	Type      string `json:"type"`
	SessionID string `json:"sessionId"`
	Reset     bool   `json:"reset,omitempty"`
	Title     string `json:"title"`
	// Count is how many items the timeline has: the page drops the ones
	// past it.
	Count int        `json:"count"`
	Items []ItemHTML `json:"items"`
	// More says that frames with the rest of the items follow (a long
	// session's first frame carries its last items only).
	More bool `json:"more,omitempty"`
	// Resumed says this frame brings a page that reconnected up to date:
	// only the items that changed since the point it sent.
	Resumed bool `json:"resumed,omitempty"`
	// LastSeq is the last stored event the timeline holds.
	LastSeq int64 `json:"lastSeq"`
	// At is when the oldest event this frame shows reached the server
	// (Unix milliseconds): the page measures event-to-DOM latency with it.
	At int64 `json:"at,omitempty"`
}

// ItemHTML is one rendered item, by its position in the timeline.
type ItemHTML struct {
	Index int    `json:"i"`
	HTML  string `json:"html"`
}

// view is one connection's timeline of one session: built by
// internal/timeline from the stored events and then the live ones, and
// rendered item by item as they change.
type view struct {
	r       *itemRenderer
	session string
	b       *timeline.Builder
	sent    []string // the HTML last sent, by index
	title   string
	lastSeq int64
	// dirty turns since the last flush; all: every item (keep and undo
	// results touch an earlier turn's files).
	dirty map[int]bool
	all   bool
	at    time.Time
}

func newView(r *itemRenderer, session string) *view {
	return &view{r: r, session: session, b: timeline.NewBuilder(), dirty: map[int]bool{}}
}

// apply adds one event.
func (v *view) apply(ev event.Event, now time.Time) {
	if ev.Seq > 0 {
		if ev.Seq <= v.lastSeq {
			return // already in the stored events the view started from
		}
		v.lastSeq = ev.Seq
	}
	v.b.Apply(ev)
	switch ev.Data.(type) {
	case event.KeepUndoResult, event.FileChangeResult, event.FilesChanged:
		v.all = true
	default:
		v.dirty[ev.Turn] = true
	}
	if v.at.IsZero() {
		v.at = now
	}
}

// The first frame of a session carries its last firstItems items (about two
// screens), so the page paints what the person looks at first; the older items follow,
// newest first, chunkItems a frame (the browser paints between them, and
// the server renders them while the page puts the first ones in place).
const (
	firstItems = 8
	chunkItems = 10
)

// reset sends the whole timeline: the first frame (Reset) with the last
// items, then the older ones.
func (v *view) reset(send func(*TimelineFrame) error) error {
	tl := v.b.Timeline()
	n := len(tl.Items)
	v.sent = make([]string, n)
	v.title, v.all, v.at = tl.Title, false, time.Time{}
	clear(v.dirty)
	end, size := n, firstItems
	for first := true; first || end > 0; first, size = false, chunkItems {
		start := max(0, end-size)
		f := &TimelineFrame{Type: TypeTimeline, SessionID: v.session, Reset: first, Title: tl.Title, Count: n,
			LastSeq: v.lastSeq, More: start > 0}
		for i := start; i < end; i++ {
			html, err := v.r.Item(tl.Items[i])
			if err != nil {
				return err
			}
			v.sent[i] = html
			f.Items = append(f.Items, ItemHTML{Index: i, HTML: html})
		}
		if err := send(f); err != nil {
			return err
		}
		end = start
	}
	return nil
}

// flush renders what changed since the last flush; nil when nothing did.
func (v *view) flush(reset bool) (*TimelineFrame, error) {
	tl := v.b.Timeline()
	f := &TimelineFrame{Type: TypeTimeline, SessionID: v.session, Reset: reset, Title: tl.Title,
		Count: len(tl.Items), LastSeq: v.lastSeq}
	if !v.at.IsZero() {
		f.At = v.at.UnixMilli()
	}
	changed := reset || tl.Title != v.title || len(tl.Items) != len(v.sent)
	for i, it := range tl.Items {
		if !reset && !v.all && !v.dirty[it.Turn] && i < len(v.sent) {
			continue
		}
		html, err := v.r.Item(it)
		if err != nil {
			return nil, err
		}
		if i < len(v.sent) && v.sent[i] == html && !reset {
			continue
		}
		f.Items = append(f.Items, ItemHTML{Index: i, HTML: html})
		if i < len(v.sent) {
			v.sent[i] = html
		} else {
			v.sent = append(v.sent, html)
		}
	}
	v.sent = v.sent[:len(tl.Items)]
	v.title, v.all, v.at = tl.Title, false, time.Time{}
	clear(v.dirty)
	if !changed && len(f.Items) == 0 {
		return nil, nil
	}
	return f, nil
}
