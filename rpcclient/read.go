package rpcclient

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/olly-agent/olly/event"
	"github.com/olly-agent/olly/rpcproto"
)

// read decodes olly's output: the ready frame, responses (to their
// waiting calls) and events.
func (c *Client) read(stdout io.Reader, readyCh chan<- rpcproto.Ready) {
	defer c.readers.Done()
	defer c.events.close()
	defer c.pi.close()
	defer c.late.close()
	defer c.failPending()
	r := bufio.NewReaderSize(stdout, 1<<20)
	for {
		line, err := readFrame(r)
		if len(bytes.TrimSpace(line)) > 0 {
			c.frame(line, readyCh)
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				c.mu.Lock()
				c.readErr = err
				c.mu.Unlock()
				_, _ = io.Copy(io.Discard, r) // let olly finish writing
			}
			return
		}
	}
}

// readFrame reads one line of at most maxFrame bytes.
func readFrame(r *bufio.Reader) ([]byte, error) {
	var buf []byte
	for {
		chunk, err := r.ReadSlice('\n')
		buf = append(buf, chunk...)
		if len(buf) > maxFrame {
			return nil, fmt.Errorf("olly sent a frame over %d bytes", maxFrame)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return buf, err
	}
}

// kind is the part of a frame that says what it is.
type kind struct {
	Type string          `json:"type"`
	ID   json.RawMessage `json:"id"`
}

func (c *Client) frame(line []byte, readyCh chan<- rpcproto.Ready) {
	var k kind
	if err := json.Unmarshal(line, &k); err != nil {
		c.mu.Lock()
		c.readErr = fmt.Errorf("olly wrote a line that is not JSON: %q", cut(line))
		c.mu.Unlock()
		return
	}
	switch {
	case k.Type == rpcproto.TypeReady:
		var r rpcproto.Ready
		if json.Unmarshal(line, &r) == nil {
			select {
			case readyCh <- r:
			default:
			}
		}
	case k.Type == rpcproto.TypeResponse:
		var resp rpcproto.Response
		if err := json.Unmarshal(line, &resp); err != nil {
			return
		}
		c.deliver(resp)
	case event.Known(event.Type(k.Type)):
		var ev event.Event
		if err := json.Unmarshal(line, &ev); err == nil {
			c.events.push(ev)
		}
	default:
		c.pi.push(append(json.RawMessage(nil), line...))
	}
}

// deliver hands a response to its call, or to Late.
func (c *Client) deliver(resp rpcproto.Response) {
	var id string
	if err := json.Unmarshal(resp.ID, &id); err != nil {
		id = string(resp.ID)
	}
	c.mu.Lock()
	ch, ok := c.pending[id]
	delete(c.pending, id)
	c.mu.Unlock()
	if ok {
		ch <- resp
		return
	}
	c.late.push(resp)
}

// failPending ends every waiting call: olly's output ended.
func (c *Client) failPending() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for id, ch := range c.pending {
		close(ch)
		delete(c.pending, id)
	}
}
