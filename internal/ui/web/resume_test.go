package web

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/olly-agent/olly/internal/event"
)

// timelineFrames dials the page's WebSocket with query and reads timeline
// frames until one that is not followed by more.
func timelineFrames(t *testing.T, s *stack, query string) []TimelineFrame {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws://"+s.ln.Addr().String()+"/ws?"+query,
		&websocket.DialOptions{HTTPHeader: http.Header{"Cookie": {cookieName + "=" + s.srv.Token()}, "Origin": {s.base()}}})
	if err != nil {
		t.Fatal(err)
	}
	c.SetReadLimit(64 << 20)
	defer c.Close(websocket.StatusNormalClosure, "")
	var out []TimelineFrame
	for {
		_, b, err := c.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var f TimelineFrame
		if json.Unmarshal(b, &f) != nil || f.Type != TypeTimeline {
			continue
		}
		out = append(out, f)
		if !f.More {
			return out
		}
	}
}

// itemsByIndex gathers the items of frames by index.
func itemsByIndex(frames []TimelineFrame) map[int]string {
	out := map[int]string{}
	for _, f := range frames {
		for _, it := range f.Items {
			out[it.Index] = it.HTML
		}
	}
	return out
}

// A page that comes back (after a drop, or to a restarted server on the
// same store) with the point it left off gets only the turns that changed
// since, rendered as a full timeline renders them; a point that is not on
// the branch, or a count that does not match, starts over.
func TestResumeSendsWhatChanged(t *testing.T) {
	s := newStack(t, nil)
	ctx := context.Background()
	emit := func(turn int, p event.Payload) event.Event {
		t.Helper()
		ev, err := s.app.Sessions.Emit(ctx, s.sess.ID, turn, p)
		if err != nil {
			t.Fatal(err)
		}
		return ev
	}
	for turn := 1; turn <= 3; turn++ {
		emit(turn, event.TurnStarted{Mode: "agent", Model: testModel})
		emit(turn, event.UserMessage{Text: "prompt " + strconv.Itoa(turn)})
		emit(turn, event.FinalMessage{Text: "answer " + strconv.Itoa(turn)})
		emit(turn, event.TurnFinished{Status: event.FinishDone, Iterations: 1})
	}
	q := "session=" + s.sess.ID
	before := timelineFrames(t, s, q)
	last := before[len(before)-1]
	if !before[0].Reset || last.Count != 6 {
		t.Fatalf("first connection: %+v", before)
	}
	// While the page is away: turn 3 gets a notice, turn 4 runs.
	emit(3, event.Warning{Message: "late warning"})
	emit(4, event.TurnStarted{Mode: "agent", Model: testModel})
	emit(4, event.UserMessage{Text: "prompt 4"})
	emit(4, event.FinalMessage{Text: "answer 4"})
	emit(4, event.TurnFinished{Status: event.FinishDone, Iterations: 1})

	full := itemsByIndex(timelineFrames(t, s, q))
	resumed := timelineFrames(t, s, q+"&since="+strconv.FormatInt(last.LastSeq, 10)+"&count=6")
	if len(resumed) != 1 || resumed[0].Reset || !resumed[0].Resumed || resumed[0].Count != 8 {
		t.Fatalf("resumed frames: %+v", resumed)
	}
	got := itemsByIndex(resumed)
	// Turn 3 (items 4 and 5) changed, turn 4 (6 and 7) is new; 0–3 are as the page has them.
	if len(got) != 4 {
		t.Errorf("resumed items %v, want 4, 5, 6 and 7", keys(got))
	}
	for i, h := range got {
		if i < 4 || full[i] != h {
			t.Errorf("item %d: resumed %q, full %q", i, h, full[i])
		}
	}
	// A count the page does not match, or a point past the log: start over.
	for _, bad := range []string{"&since=" + strconv.FormatInt(last.LastSeq, 10) + "&count=5", "&since=99999&count=6", "&since=x&count=1"} {
		if f := timelineFrames(t, s, q+bad); !f[0].Reset || f[0].Resumed {
			t.Errorf("%s: not started over: %+v", bad, f[0])
		}
	}
}

func keys(m map[int]string) []int {
	var out []int
	for k := range m {
		out = append(out, k)
	}
	return out
}
