package openai

import (
	"bytes"
	"errors"
	"io"

	"github.com/olly-agent/olly/internal/llm/internal/wire"
)

// eventReader reads server-sent events as the WHATWG specification frames
// them: "field: value" lines, one optional space after the colon, several
// data lines joined with "\n", comment lines starting with ':', "event:"
// naming the type, a blank line dispatching the event, and lines ended by
// LF, CRLF or a lone CR. An event left open at the end of the body is
// still dispatched: dropping its data would lose output.
type eventReader struct {
	lines   *wire.LineReader
	pending []byte // the rest of a line after a lone CR
	split   bool   // pending is set
	started bool
	data    []byte
	event   []byte
	hasData bool
	// dataLine is the number of the event's last data line, for errors.
	dataLine int
}

// next returns the type and data of the next event, or io.EOF. The data
// slice is valid until the next call.
func (r *eventReader) next() (event, data []byte, err error) {
	r.data, r.event, r.hasData = r.data[:0], r.event[:0], false
	for {
		line, err := r.line()
		if err != nil {
			if errors.Is(err, io.EOF) && r.hasData {
				return r.event, r.data, nil
			}
			return nil, nil, err
		}
		if len(line) == 0 {
			if r.hasData {
				return r.event, r.data, nil
			}
			r.event = r.event[:0]
			continue
		}
		r.field(line)
	}
}

// field applies one non-blank line.
func (r *eventReader) field(line []byte) {
	if line[0] == ':' {
		return // a comment, often a keep-alive
	}
	name, value := line, []byte(nil)
	if i := bytes.IndexByte(line, ':'); i >= 0 {
		name, value = line[:i], line[i+1:]
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
	}
	switch string(name) {
	case "data":
		if r.hasData {
			r.data = append(r.data, '\n')
		}
		r.data = append(r.data, value...)
		r.hasData = true
		r.dataLine = r.lines.Line()
	case "event":
		r.event = append(r.event[:0], value...)
	}
	// "id", "retry" and unknown fields do not matter to a one-shot stream.
}

// line returns the next line, splitting on lone CRs inside what the line
// reader returned (it splits on LF and strips a CR before it).
func (r *eventReader) line() ([]byte, error) {
	var line []byte
	if r.split {
		line, r.split = r.pending, false
	} else {
		var err error
		if line, err = r.lines.Next(); err != nil {
			return nil, err
		}
		if !r.started {
			r.started = true
			line = bytes.TrimPrefix(line, []byte("\xEF\xBB\xBF")) // byte-order mark
		}
	}
	if i := bytes.IndexByte(line, '\r'); i >= 0 {
		r.pending, r.split = line[i+1:], true
		line = line[:i]
	}
	return line, nil
}
