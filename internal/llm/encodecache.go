package llm

import (
	"sync"
	"sync/atomic"
)

// EncodeCache keeps the wire encoding of one conversation's messages from
// one chat request to the next (ChatRequest.Cache). An agent's requests
// differ by the few messages added since the last one, and encoding the
// whole history again every iteration made the request's JSON grow in cost
// with the conversation; with a cache each message is encoded once, and a
// request body is assembled from the kept encodings. The body is byte for
// byte what the client sends without a cache.
//
// A message is found again by comparing it with the one kept at the same
// position; strings and byte slices that are the same memory compare in
// constant time, so the check costs next to nothing when the caller passes
// the same messages again. The bytes of a message (its Images, its tool
// calls' Arguments) must not be modified in place once it was sent, as
// with strings. Memory: the cache holds one encoding per message of the
// last request, about the size of its body.
//
// One cache serves one conversation. It is safe for concurrent use (a
// request holds it while its body is built), but two conversations sharing
// one would keep replacing each other's encodings. The zero value is
// ready; a cache used with another dialect starts over.
type EncodeCache struct {
	mu      sync.Mutex
	dialect string
	state   any
	lastID  atomic.Uint64
}

// NewID numbers a request made with the cache (ChatRequest.ID): no two of
// its requests get the same number, whoever makes them, so that a promise
// (ChatRequest.KeptFrom) cannot name another conversation's request that
// shares the cache. Numbers a caller counted itself could: two
// conversations on one cache each had a request 1, and the second one's
// messages were sent as the first's.
func (c *EncodeCache) NewID() uint64 {
	return c.lastID.Add(1)
}

// Hold is for the wire clients: it locks the cache and returns what was
// kept for dialect (nil: nothing, or it was kept for another dialect).
// release unlocks it, keeping next.
func (c *EncodeCache) Hold(dialect string) (state any, release func(next any)) {
	c.mu.Lock()
	if c.dialect == dialect {
		state = c.state
	}
	return state, func(next any) {
		c.dialect, c.state = dialect, next
		c.mu.Unlock()
	}
}
