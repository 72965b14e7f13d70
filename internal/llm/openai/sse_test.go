package openai

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/olly-agent/olly/internal/llm/internal/wire"
)

type ev struct{ Event, Data string }

func readEvents(t testing.TB, body []byte) ([]ev, error) {
	r := eventReader{lines: wire.NewLineReader(bytes.NewReader(body), 0)}
	var out []ev
	for {
		e, d, err := r.next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, ev{string(e), string(d)})
	}
}

func TestEventReader(t *testing.T) {
	cases := []struct {
		name string
		in   string
		want []ev
	}{
		{name: "one event", in: "data: {}\n\n", want: []ev{{"", "{}"}}},
		{name: "no space after colon", in: "data:{}\n\n", want: []ev{{"", "{}"}}},
		{name: "only one space is stripped", in: "data:  x\n\n", want: []ev{{"", " x"}}},
		{name: "multi-line data joined with LF", in: "data: a\ndata: b\n\n", want: []ev{{"", "a\nb"}}},
		{name: "comments ignored", in: ": ping\ndata: a\n: more\n\n", want: []ev{{"", "a"}}},
		{name: "event type", in: "event: error\ndata: x\n\ndata: y\n\n", want: []ev{{"error", "x"}, {"", "y"}}},
		{name: "event type without data is dropped", in: "event: ping\n\ndata: y\n\n", want: []ev{{"", "y"}}},
		{name: "id and retry ignored", in: "id: 7\nretry: 100\ndata: a\n\n", want: []ev{{"", "a"}}},
		{name: "CRLF", in: "data: a\r\n\r\ndata: b\r\n\r\n", want: []ev{{"", "a"}, {"", "b"}}},
		{name: "lone CR", in: "data: a\r\rdata: b\r\r", want: []ev{{"", "a"}, {"", "b"}}},
		{name: "empty data line", in: "data:\n\n", want: []ev{{"", ""}}},
		{name: "field without colon", in: "data\n\n", want: []ev{{"", ""}}},
		{name: "blank lines between events", in: "\n\n\ndata: a\n\n\n\n", want: []ev{{"", "a"}}},
		{name: "unterminated last event is kept", in: "data: a\n\ndata: b", want: []ev{{"", "a"}, {"", "b"}}},
		{name: "byte-order mark", in: "\xEF\xBB\xBFdata: a\n\n", want: []ev{{"", "a"}}},
		{name: "DONE", in: "data: [DONE]\n\n", want: []ev{{"", "[DONE]"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := readEvents(t, []byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

// referenceEvents is a direct transcription of the WHATWG parsing rules,
// byte by byte, to check the line-based reader against.
func referenceEvents(body []byte) []ev {
	body = bytes.TrimPrefix(body, []byte("\xEF\xBB\xBF"))
	var lines [][]byte
	start := 0
	for i := 0; i < len(body); i++ {
		switch body[i] {
		case '\r':
			lines = append(lines, body[start:i])
			if i+1 < len(body) && body[i+1] == '\n' {
				i++
			}
			start = i + 1
		case '\n':
			lines = append(lines, body[start:i])
			start = i + 1
		}
	}
	if start < len(body) {
		lines = append(lines, body[start:])
	}
	var out []ev
	var data, event []byte
	has := false
	for _, l := range lines {
		switch {
		case len(l) == 0:
			if has {
				out = append(out, ev{string(event), string(data)})
			}
			data, event, has = nil, nil, false
		case l[0] == ':':
		default:
			name, value, found := bytes.Cut(l, []byte(":"))
			if found && len(value) > 0 && value[0] == ' ' {
				value = value[1:]
			}
			switch string(name) {
			case "data":
				if has {
					data = append(data, '\n')
				}
				data = append(data, value...)
				has = true
			case "event":
				event = append([]byte(nil), value...)
			}
		}
	}
	if has {
		out = append(out, ev{string(event), string(data)})
	}
	return out
}

// FuzzEventReader checks the reader against the reference on any input.
func FuzzEventReader(f *testing.F) {
	for _, s := range []string{
		"data: a\n\n", "data: a\r\ndata: b\r\n\r\n", "event: e\rdata: x\r\r", ": c\n\ndata\n\n",
		"data: a\r\r\n", "\xEF\xBB\xBFdata: a", "data: [DONE]\n\n", "data:  sp\n\nevent:\ndata:\n\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		got, err := readEvents(t, body)
		if err != nil {
			t.Fatal(err)
		}
		want := referenceEvents(body)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("input %q:\ngot  %q\nwant %q", body, got, want)
		}
	})
}
