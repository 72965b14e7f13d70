package web

import (
	"net/url"
	"strconv"
)

// resumePoint is where a page that reconnects left off: the last stored
// event its timeline holds and how many items it shows. A page that
// reconnects to the session it showed sends them (/ws?since=SEQ&count=N),
// and gets only the items that changed since, instead of the whole
// timeline again.
type resumePoint struct {
	since int64
	count int
}

// resumeFrom reads a resume point from the WebSocket's query; the zero
// point (start over) when there is none or it does not parse.
func resumeFrom(q url.Values) resumePoint {
	since, err1 := strconv.ParseInt(q.Get("since"), 10, 64)
	count, err2 := strconv.Atoi(q.Get("count"))
	if err1 != nil || err2 != nil || since <= 0 || count < 0 {
		return resumePoint{}
	}
	return resumePoint{since: since, count: count}
}

// resume turns a view built from the stored branch into the frame a page
// at point p needs: the items of every turn with an event after p.since,
// the last item (it may hold what streamed live), and the new count. ok is
// false when the page's timeline is not a prefix of this one (the branch
// moved, the session is another, the count differs): it starts over then.
// atSince is how many items the timeline had once p.since was applied
// (-1: p.since is not on the branch).
func (v *view) resume(p resumePoint, atSince int) (*TimelineFrame, bool, error) {
	if p.since <= 0 || atSince != p.count || p.since > v.lastSeq {
		return nil, false, nil
	}
	tl := v.b.Timeline()
	v.sent = make([]string, p.count) // the page has these; their HTML is not known here
	if n := len(tl.Items); n > 0 {
		v.dirty[tl.Items[n-1].Turn] = true
	}
	f, err := v.flush(false)
	if err != nil {
		return nil, false, err
	}
	if f == nil {
		f = &TimelineFrame{Type: TypeTimeline, SessionID: v.session, Title: tl.Title, Count: len(tl.Items), LastSeq: v.lastSeq}
	}
	f.Resumed, f.At = true, 0
	return f, true, nil
}
