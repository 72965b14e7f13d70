package shell

import (
	"fmt"
	"sync"
	"time"
	"unicode/utf8"
)

// maxLivePending bounds output waiting for a slow OnOutput callback. The
// live view is best effort: when the callback falls this far behind, the
// oldest waiting output is dropped (the artifact still has it) instead of
// slowing the command down or growing memory.
const maxLivePending = 1 << 20

// live passes output to an OnOutput callback as it arrives, coalesced to at
// most one call per interval so a chatty command cannot flood the UI with
// thousands of tiny events. Chunks are cut on UTF-8 boundaries.
type live struct {
	fn       func([]byte)
	interval time.Duration

	mu      sync.Mutex
	pending []byte
	dropped int64

	kick chan struct{}
	stop chan struct{}
	done chan struct{}
}

// startLive starts the goroutine that calls fn; nil fn gives a nil *live,
// whose methods do nothing.
func startLive(fn func([]byte), interval time.Duration) *live {
	if fn == nil {
		return nil
	}
	l := &live{
		fn:       fn,
		interval: interval,
		kick:     make(chan struct{}, 1),
		stop:     make(chan struct{}),
		done:     make(chan struct{}),
	}
	go l.loop()
	return l
}

func (l *live) write(p []byte) {
	if l == nil || len(p) == 0 {
		return
	}
	l.mu.Lock()
	if len(l.pending)+len(p) > maxLivePending {
		l.dropped += int64(len(l.pending))
		l.pending = l.pending[:0]
		if len(p) > maxLivePending {
			l.dropped += int64(len(p) - maxLivePending)
			p = p[len(p)-maxLivePending:]
		}
	}
	l.pending = append(l.pending, p...)
	l.mu.Unlock()
	select {
	case l.kick <- struct{}{}:
	default:
	}
}

func (l *live) loop() {
	defer close(l.done)
	for {
		select {
		case <-l.kick:
		case <-l.stop:
			l.flush(true)
			return
		}
		l.flush(false)
		t := time.NewTimer(l.interval)
		select {
		case <-t.C:
		case <-l.stop:
			t.Stop()
			l.flush(true)
			return
		}
	}
}

// flush hands what is pending to the callback. Unless final, an incomplete
// UTF-8 sequence at the end waits for the rest of its bytes.
func (l *live) flush(final bool) {
	l.mu.Lock()
	n := len(l.pending)
	if !final {
		n = completeUTF8(l.pending)
	}
	var out []byte
	if l.dropped > 0 {
		out = fmt.Appendf(out, "\n[… %d bytes of output not shown live; the full output follows the command]\n", l.dropped)
		l.dropped = 0
	}
	out = append(out, l.pending[:n]...)
	l.pending = append(l.pending[:0], l.pending[n:]...)
	l.mu.Unlock()
	if len(out) > 0 {
		l.fn(out)
	}
}

// close delivers what is left and stops the goroutine.
func (l *live) close() {
	if l == nil {
		return
	}
	close(l.stop)
	<-l.done
}

// completeUTF8 returns the length of the longest prefix of b that does not
// end inside a UTF-8 sequence that more bytes could still complete.
func completeUTF8(b []byte) int {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return i
			}
			break
		}
	}
	return len(b)
}
