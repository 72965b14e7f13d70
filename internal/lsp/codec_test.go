package lsp

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestReadFrame(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    []string
		wantErr string
	}{
		{name: "one message", in: "Content-Length: 2\r\n\r\n{}", want: []string{"{}"}},
		{name: "two messages back to back", in: "Content-Length: 2\r\n\r\n{}Content-Length: 4\r\n\r\nnull", want: []string{"{}", "null"}},
		{name: "header case and extra headers", in: "content-type: application/vscode-jsonrpc\r\ncontent-length:   3\r\n\r\n[1]", want: []string{"[1]"}},
		{name: "bare LF line endings", in: "Content-Length: 2\n\n{}", want: []string{"{}"}},
		{name: "body with trailing whitespace is consumed whole", in: "Content-Length: 4\r\n\r\n{}\r\nContent-Length: 2\r\n\r\n[]", want: []string{"{}\r\n", "[]"}},
		{name: "clean end", in: "", want: nil},
		{name: "no length", in: "Content-Type: x\r\n\r\n{}", wantErr: "no Content-Length"},
		{name: "negative length", in: "Content-Length: -1\r\n\r\n", wantErr: "bad Content-Length"},
		{name: "huge length", in: "Content-Length: 999999999999\r\n\r\n", wantErr: "exceeds"},
		{name: "header without colon", in: "garbage\r\n\r\n", wantErr: "no colon"},
		{name: "cut body", in: "Content-Length: 10\r\n\r\n{}", wantErr: "unexpected EOF"},
		{name: "cut header", in: "Content-Len", wantErr: "unexpected EOF"},
		{name: "endless header", in: strings.Repeat("x", 5000), wantErr: "longer than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := bufio.NewReaderSize(strings.NewReader(tt.in), 64)
			var got []string
			for {
				body, err := readFrame(r)
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					if tt.wantErr == "" || !strings.Contains(err.Error(), tt.wantErr) {
						t.Fatalf("error %v, want %q", err, tt.wantErr)
					}
					return
				}
				got = append(got, string(body))
			}
			if tt.wantErr != "" {
				t.Fatalf("no error, want %q", tt.wantErr)
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Fatalf("bodies %q, want %q", got, tt.want)
			}
		})
	}
}

func TestCodecRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	msg := map[string]any{"jsonrpc": "2.0", "method": "x", "params": map[string]string{"text": "π 😀\r\n"}}
	if err := (codec{}).WriteObject(&buf, msg); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(buf.String(), "Content-Length: ") {
		t.Fatalf("frame = %q", buf.String())
	}
	var got map[string]any
	if err := (codec{}).ReadObject(bufio.NewReader(&buf), &got); err != nil {
		t.Fatal(err)
	}
	if got["params"].(map[string]any)["text"] != "π 😀\r\n" {
		t.Fatalf("round trip = %v", got)
	}
	bad := bufio.NewReader(strings.NewReader("Content-Length: 3\r\n\r\n{x}"))
	if err := (codec{}).ReadObject(bad, &got); !errors.Is(err, errFraming) {
		t.Fatalf("invalid JSON body: %v, want a framing error", err)
	}
}

// FuzzReadFrame feeds arbitrary streams to the framing reader: it must
// never panic, never return a body longer than its header said, and never
// allocate past the message limit.
func FuzzReadFrame(f *testing.F) {
	for _, s := range []string{"Content-Length: 2\r\n\r\n{}", "content-length:0\n\n", "Content-Length: 5\r\n\r\nab", "\r\n\r\n", "Content-Length: 1e9\r\n\r\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r := bufio.NewReaderSize(bytes.NewReader(data), 16)
		for range 64 {
			body, err := readFrame(r)
			if err != nil {
				return
			}
			if len(body) > len(data) {
				t.Fatalf("body of %d bytes from %d bytes of input", len(body), len(data))
			}
		}
	})
}
