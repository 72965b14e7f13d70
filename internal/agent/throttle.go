package agent

import (
	"context"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/olly-agent/olly/internal/event"
)

// Streaming display limits (seed 000, "Streaming Behavior").
const (
	// throttle is how often streamed text and thinking are published:
	// about 30 updates a second is smooth to read and cheap for every
	// frontend.
	throttle = 32 * time.Millisecond
	// firstChunkWords is how many word characters the first text delta of
	// an iteration needs, so that fragments like "**What" never flash on
	// screen in place of the spinner. Later deltas need one.
	firstChunkWords = 8
)

// pump publishes an iteration's streamed text and thinking as throttled
// ephemeral deltas. The stream loop adds text under mu; a ticker goroutine
// publishes what is pending every 32 ms, so text does not sit unseen while
// the server pauses (Ollama can stall for a minute while it buffers a
// native tool call). Durable events of the iteration are emitted under mu
// too (withLock), after the pending deltas, so the order subscribers see is
// the order of the stream.
type pump struct {
	ctx  context.Context
	emit func(ctx context.Context, p event.Payload) error
	iter int

	// text and think hold everything visible so far; textSent and
	// thinkSent how much of it was published. One buffer serves both the
	// deltas and the final text, so each chunk is copied once.
	mu          sync.Mutex
	text        []byte
	think       []byte
	textSent    int
	thinkSent   int
	textStarted bool
	status      string

	stop chan struct{}
	done chan struct{}
}

func newPump(ctx context.Context, emit func(context.Context, event.Payload) error, iter int) *pump {
	return &pump{ctx: ctx, emit: emit, iter: iter}
}

// start runs the ticker goroutine; stop must be called.
func (p *pump) start(clock Clock) {
	p.stop, p.done = make(chan struct{}), make(chan struct{})
	t := clock.NewTicker(throttle)
	go func() {
		defer close(p.done)
		defer t.Stop()
		for {
			select {
			case <-t.C():
				p.mu.Lock()
				p.flushLocked(false)
				p.mu.Unlock()
			case <-p.stop:
				return
			}
		}
	}()
}

// halt stops the ticker goroutine and waits for it. Safe to call twice.
func (p *pump) halt() {
	if p.stop == nil {
		return
	}
	select {
	case <-p.stop:
	default:
		close(p.stop)
	}
	<-p.done
}

// addText queues visible answer text.
func (p *pump) addText(s string) {
	p.mu.Lock()
	p.text = append(p.text, s...)
	p.mu.Unlock()
}

// addThinking queues visible thinking.
func (p *pump) addThinking(s string) {
	p.mu.Lock()
	p.think = append(p.think, s...)
	p.mu.Unlock()
}

// shown returns all the visible text and thinking so far.
func (p *pump) shown() (text, thinking string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return string(p.text), string(p.think)
}

// setStatus publishes a spinner line once per change.
func (p *pump) setStatus(s string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if s == p.status {
		return
	}
	p.status = s
	p.send(event.Status{Text: s})
}

// withLock runs fn after publishing pending deltas, holding the lock, so
// a durable event fn emits comes after them and before any later delta.
func (p *pump) withLock(fn func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.flushLocked(true)
	fn()
}

// flush publishes everything pending (the end of the stream).
func (p *pump) flush() {
	p.mu.Lock()
	p.flushLocked(true)
	p.mu.Unlock()
}

// flushLocked publishes pending thinking, then pending text once it passes
// the word gate (all of it when final).
func (p *pump) flushLocked(final bool) {
	if pending := p.think[p.thinkSent:]; len(pending) > 0 && (final || hasWordChars(pending, 1)) {
		p.send(event.ThinkingDelta{Iteration: p.iter, Text: string(pending)})
		p.thinkSent = len(p.think)
	}
	pending := p.text[p.textSent:]
	if len(pending) == 0 {
		return
	}
	need := 1
	if !p.textStarted {
		need = firstChunkWords
	}
	if final || hasWordChars(pending, need) {
		p.send(event.TextDelta{Iteration: p.iter, Text: string(pending)})
		p.textSent = len(p.text)
		p.textStarted = true
	}
}

// send publishes an ephemeral event. A failure to publish one is not worth
// stopping the turn for: the durable event that supersedes it follows.
func (p *pump) send(pl event.Payload) {
	_ = p.emit(p.ctx, pl)
}

// hasWordChars reports whether s holds at least n word characters
// (letters, digits, underscore, in any script).
func hasWordChars(s []byte, n int) bool {
	count := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c == '_' || ('0' <= c && c <= '9') || ('a' <= c|0x20 && c|0x20 <= 'z') {
				count++
			}
			i++
		} else {
			r, size := utf8.DecodeRune(s[i:])
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				count++
			}
			i += size
		}
		if count >= n {
			return true
		}
	}
	return false
}
