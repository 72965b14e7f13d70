package wire

import (
	"bytes"
	"io"
	"net"
	"strconv"
	"sync"
)

// reqConn is a client connection that sends a request's head and its body
// in one write. The transport writes a head on its own (it flushes the head
// before a body it does not know to be in memory, which a Pieces body is
// not) and then hands the body to ReadFrom; on loopback every write is a
// whole trip through the network stack and a wake-up of the server, so
// reqConn holds a head that announces a body and sends it with the body,
// one writev of the head and the body's pieces. The bytes on the wire are
// the same.
//
// Only the transport's write loop writes, one request at a time, so head
// needs no lock; Close (from any goroutine) does not touch it.
type reqConn struct {
	net.Conn
	head    []byte      // a request head held for its body; nil: none
	headBuf []byte      // head's storage, kept for the next request
	iov     net.Buffers // sendWith's list, kept for the next request
}

// Write holds a request head that announces a body and sends anything else
// (with a held head before it).
func (c *reqConn) Write(p []byte) (int, error) {
	if c.head != nil {
		return c.sendWith([][]byte{p}, 0)
	}
	if announcesBody(p) {
		c.headBuf = append(c.headBuf[:0], p...)
		c.head = c.headBuf
		return len(p), nil
	}
	return c.Conn.Write(p)
}

// ReadFrom sends a body: a Pieces body (as the transport hands it, limited
// to its length) in one write with the held head, any other through a
// pooled buffer (net.TCPConn's own ReadFrom, which can only splice from
// sockets and files, would allocate 32 KiB for every request).
func (c *reqConn) ReadFrom(r io.Reader) (int64, error) {
	if lr, ok := r.(*io.LimitedReader); ok {
		if pr, ok := lr.R.(*piecesReader); ok && int64(pr.remaining()) <= lr.N {
			n, err := c.sendWith(pr.p, pr.off)
			pr.p, pr.off = nil, 0
			lr.N -= int64(n)
			return int64(n), err
		}
	}
	bp := copyBufs.Get().(*[]byte)
	defer copyBufs.Put(bp)
	return io.CopyBuffer(writerOnly{c}, r, *bp)
}

// sendWith writes the held head (if any) and then the pieces (the first
// from off), in one writev where the connection is a socket; it returns how
// much of the pieces went. The pieces are not modified (the list that
// writev consumes is the connection's own).
func (c *reqConn) sendWith(pieces [][]byte, off int) (int, error) {
	h := len(c.head)
	iov := c.iov[:0]
	if h > 0 {
		iov = append(iov, c.head)
		c.head = nil
	}
	for i, b := range pieces {
		if i == 0 {
			b = b[off:]
		}
		iov = append(iov, b)
	}
	all := iov
	n, err := iov.WriteTo(c.Conn)
	clear(all) // the pieces are not kept past the request
	c.iov = all[:0]
	return max(int(n)-h, 0), err
}

var copyBufs = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// writerOnly hides a writer's ReadFrom from io.CopyBuffer.
type writerOnly struct{ io.Writer }

// announcesBody reports whether p is a whole request head (its first blank
// line is its end) with a Content-Length above zero: the transport writes
// the body next.
func announcesBody(p []byte) bool {
	// Most writes that are no head (a TLS record, a body) do not end like
	// one: those are not scanned.
	if !bytes.HasSuffix(p, []byte("\r\n\r\n")) {
		return false
	}
	end := bytes.Index(p, []byte("\r\n\r\n"))
	if end < 0 || end != len(p)-4 {
		return false
	}
	const key = "\r\nContent-Length: "
	i := bytes.Index(p[:end+2], []byte(key))
	if i < 0 {
		return false
	}
	v := p[i+len(key):]
	v = v[:bytes.IndexByte(v, '\r')]
	n, err := strconv.ParseInt(string(v), 10, 64)
	return err == nil && n > 0
}
