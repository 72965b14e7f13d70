package wire

import (
	"encoding/json"
	"io"
	"net/http"
)

// Pieces is a request body made of byte slices sent one after the other.
// The slices are never modified once they are in a body: the transport may
// still be reading one request's body when the next is built from the same
// cached pieces (ChatBody).
type Pieces [][]byte

// Len is the body's length in bytes.
func (p Pieces) Len() int {
	n := 0
	for _, b := range p {
		n += len(b)
	}
	return n
}

// Bytes joins the pieces (for tests and for small bodies).
func (p Pieces) Bytes() []byte {
	out := make([]byte, 0, p.Len())
	for _, b := range p {
		out = append(out, b...)
	}
	return out
}

// BodyEncoder is a request body that encodes itself into pieces (Call.Body);
// any other body is encoded with json.Marshal.
type BodyEncoder interface {
	EncodeBody() (Pieces, error)
}

// Encode turns a call's body into pieces; nil sends no body.
func Encode(v any) (Pieces, error) {
	switch v := v.(type) {
	case nil:
		return nil, nil
	case BodyEncoder:
		return v.EncodeBody()
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return Pieces{b}, nil
}

// piecesReader reads a Pieces body. Each Read fills as much of its buffer
// as the pieces allow, so the transport's write buffer takes a whole
// conversation in few reads however many messages it has.
type piecesReader struct {
	p   Pieces
	off int // in p[0]
}

func (r *piecesReader) Read(b []byte) (int, error) {
	n := 0
	for n < len(b) && len(r.p) > 0 {
		c := copy(b[n:], r.p[0][r.off:])
		n += c
		r.off += c
		if r.off == len(r.p[0]) {
			r.p, r.off = r.p[1:], 0
		}
	}
	if n == 0 && len(r.p) == 0 {
		return 0, io.EOF
	}
	return n, nil
}

// Close does nothing: the pieces are the caller's. (A reader that closes
// itself reaches the connection unwrapped: the transport unwraps its own
// wrapper of a body, not an io.NopCloser inside it.)
func (r *piecesReader) Close() error { return nil }

// remaining is how many bytes are left to read.
func (r *piecesReader) remaining() int {
	return r.p.Len() - r.off
}

// setBody gives req the body p, with its length and a GetBody for the
// transport's own retry of a request on a connection the server had
// closed.
func setBody(req *http.Request, p Pieces) {
	n := p.Len()
	if n == 0 {
		req.Body, req.ContentLength = http.NoBody, 0
		return
	}
	req.Body = &piecesReader{p: p}
	req.ContentLength = int64(n)
	req.GetBody = func() (io.ReadCloser, error) { return &piecesReader{p: p}, nil }
}
