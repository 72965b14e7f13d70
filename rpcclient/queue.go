package rpcclient

import "sync"

// queue hands values to a channel without ever blocking the producer: the
// reader of olly's output must never stall because nobody drains the
// events (responses would stall behind them). Values wait in memory until
// read; Close ends the channel once they are all delivered.
type queue[T any] struct {
	out    chan T
	mu     sync.Mutex
	items  []T
	closed bool
	wake   chan struct{}
	done   chan struct{}
}

func newQueue[T any]() *queue[T] {
	q := &queue[T]{out: make(chan T), wake: make(chan struct{}, 1), done: make(chan struct{})}
	go q.run()
	return q
}

// push adds v; after close it is dropped.
func (q *queue[T]) push(v T) {
	q.mu.Lock()
	if !q.closed {
		q.items = append(q.items, v)
	}
	q.mu.Unlock()
	q.signal()
}

// close ends the channel after the queued values.
func (q *queue[T]) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.signal()
}

// discard drops what is queued and stops delivering, for a client that is
// going away and will not read.
func (q *queue[T]) discard() {
	q.mu.Lock()
	q.items, q.closed = nil, true
	q.mu.Unlock()
	q.signal()
	select {
	case <-q.done:
		return
	default:
	}
	// The forwarder may be blocked handing over a value: take it.
	for {
		select {
		case <-q.out:
		case <-q.done:
			return
		}
	}
}

func (q *queue[T]) signal() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

func (q *queue[T]) run() {
	defer close(q.done)
	defer close(q.out)
	for {
		q.mu.Lock()
		if len(q.items) == 0 {
			closed := q.closed
			q.mu.Unlock()
			if closed {
				return
			}
			<-q.wake
			continue
		}
		v := q.items[0]
		var zero T
		q.items[0] = zero
		q.items = q.items[1:]
		q.mu.Unlock()
		q.out <- v
	}
}
