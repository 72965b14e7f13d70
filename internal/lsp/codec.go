package lsp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// maxMessageBytes bounds one message from a server. The largest real
// answers (workspace symbols of a big repository) are a few MB; anything
// near this is a broken stream, and reading it would only eat memory.
const maxMessageBytes = 64 << 20

// maxHeaderBytes bounds one header line and maxHeaders their number.
const (
	maxHeaderBytes = 1024
	maxHeaders     = 16
)

// errFraming is wrapped by every malformed-stream error.
var errFraming = errors.New("malformed LSP message framing")

// codec is the base protocol's framing, "Content-Length: N\r\n\r\n" then
// N bytes of JSON, as a jsonrpc2.ObjectCodec. It is written here rather
// than taken from jsonrpc2.VSCodeObjectCodec because that one matches the
// header case-sensitively, may leave trailing body bytes unread (so the
// next message starts mid-body), and reads lengths without a bound.
type codec struct{}

// WriteObject frames obj.
func (codec) WriteObject(w io.Writer, obj any) error {
	data, err := json.Marshal(obj)
	if err != nil {
		return fmt.Errorf("encode LSP message: %w", err)
	}
	if _, err := fmt.Fprintf(w, "Content-Length: %d\r\n\r\n", len(data)); err != nil {
		return err
	}
	_, err = w.Write(data)
	return err
}

// ReadObject reads one framed message into v.
func (codec) ReadObject(r *bufio.Reader, v any) error {
	body, err := readFrame(r)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("%w: message body is not valid JSON-RPC: %v", errFraming, err)
	}
	return nil
}

// readFrame reads the headers and exactly Content-Length bytes of body.
// Header names are case-insensitive; headers other than Content-Length
// (Content-Type) are ignored; a bare "\n" line ending is accepted, since
// some servers write one.
func readFrame(r *bufio.Reader) ([]byte, error) {
	length := -1
	for n := 0; ; n++ {
		line, err := readHeaderLine(r)
		if err != nil {
			if n == 0 && errors.Is(err, io.EOF) {
				return nil, io.EOF // a clean end between messages
			}
			return nil, err
		}
		if len(line) == 0 {
			break
		}
		if n >= maxHeaders {
			return nil, fmt.Errorf("%w: more than %d header lines", errFraming, maxHeaders)
		}
		name, value, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			return nil, fmt.Errorf("%w: header line %q has no colon", errFraming, truncateBytes(line, 64))
		}
		if !bytes.EqualFold(bytes.TrimSpace(name), []byte("Content-Length")) {
			continue
		}
		l, err := strconv.Atoi(string(bytes.TrimSpace(value)))
		if err != nil || l < 0 {
			return nil, fmt.Errorf("%w: bad Content-Length %q", errFraming, truncateBytes(value, 32))
		}
		if l > maxMessageBytes {
			return nil, fmt.Errorf("%w: message of %d bytes exceeds the %d MB limit", errFraming, l, maxMessageBytes>>20)
		}
		length = l
	}
	if length < 0 {
		return nil, fmt.Errorf("%w: no Content-Length header", errFraming)
	}
	return readBody(r, length)
}

// readBody reads exactly n bytes. A large body grows as its bytes arrive,
// so a lying header on a cut stream does not allocate its claimed size.
func readBody(r io.Reader, n int) ([]byte, error) {
	const direct = 64 << 10
	if n <= direct {
		body := make([]byte, n)
		if _, err := io.ReadFull(r, body); err != nil {
			return nil, bodyError(err)
		}
		return body, nil
	}
	var buf bytes.Buffer
	buf.Grow(direct)
	if _, err := io.CopyN(&buf, r, int64(n)); err != nil {
		return nil, bodyError(err)
	}
	return buf.Bytes(), nil
}

func bodyError(err error) error {
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("read LSP message body: %w", err)
}

// readHeaderLine reads one header line without its line ending.
func readHeaderLine(r *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > maxHeaderBytes {
			return nil, fmt.Errorf("%w: header line longer than %d bytes", errFraming, maxHeaderBytes)
		}
		if err == nil {
			break
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if errors.Is(err, io.EOF) && len(line) > 0 {
			return nil, fmt.Errorf("read LSP header: %w", io.ErrUnexpectedEOF)
		}
		return nil, err
	}
	line = bytes.TrimSuffix(line, []byte("\n"))
	return bytes.TrimSuffix(line, []byte("\r")), nil
}

func truncateBytes(b []byte, n int) []byte {
	if len(b) > n {
		return b[:n]
	}
	return b
}
