package lsp

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestDecodeLocations(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []Location
	}{
		{name: "null", in: `null`, want: nil},
		{name: "one location", in: `{"uri":"file:///a.go","range":{"start":{"line":1,"character":2},"end":{"line":1,"character":3}}}`,
			want: []Location{{URI: "file:///a.go", Range: Range{Start: Position{1, 2}, End: Position{1, 3}}}}},
		{name: "location links use the target's name", in: `[{"targetUri":"file:///b.go","targetRange":{"start":{"line":0,"character":0},"end":{"line":9,"character":0}},"targetSelectionRange":{"start":{"line":4,"character":5},"end":{"line":4,"character":8}}}]`,
			want: []Location{{URI: "file:///b.go", Range: Range{Start: Position{4, 5}, End: Position{4, 8}}}}},
		{name: "empty list", in: `[]`, want: []Location{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := decodeLocations(json.RawMessage(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) || (len(got) > 0 && got[0] != tt.want[0]) {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
		})
	}
	if _, err := decodeLocations(json.RawMessage(`"nope"`)); err == nil {
		t.Fatal("a string decoded as locations")
	}
}

func TestHoverShapes(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{name: "markup content", in: `{"contents":{"kind":"markdown","value":"**x**"}}`, want: "**x**"},
		{name: "plain marked string", in: `{"contents":"just text"}`, want: "just text"},
		{name: "marked string with language", in: `{"contents":{"language":"go","value":"func F()"}}`, want: "```go\nfunc F()\n```"},
		{name: "list of marked strings", in: `{"contents":[{"language":"go","value":"var x int"},"doc"]}`, want: "```go\nvar x int\n```\n\ndoc"},
		{name: "no contents", in: `{"contents":null}`, want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var h Hover
			if err := json.Unmarshal([]byte(tt.in), &h); err != nil {
				t.Fatal(err)
			}
			if h.Contents != tt.want {
				t.Fatalf("got %q, want %q", h.Contents, tt.want)
			}
		})
	}
}

func TestDiagnosticCodeAndFormat(t *testing.T) {
	var d []Diagnostic
	in := `[{"range":{"start":{"line":2,"character":4},"end":{"line":2,"character":5}},"severity":2,"code":"unusedvar","source":"lint","message":"x unused"},
	        {"range":{"start":{"line":0,"character":2},"end":{"line":0,"character":3}},"code":2322,"message":"bad\ntype"},
	        {"range":{"start":{"line":1,"character":0},"end":{"line":1,"character":1}},"severity":4,"code":{"value":1},"message":"hint"}]`
	if err := json.Unmarshal([]byte(in), &d); err != nil {
		t.Fatal(err)
	}
	if d[1].Code != "2322" || d[2].Code != "" {
		t.Fatalf("codes %q %q", d[1].Code, d[2].Code)
	}
	got := FormatDiagnostics("a.ts", d, NewMapper([]byte("😀ab\nx\n    y\n")), 2)
	want := "a.ts:1:2: Error: bad\n    type (2322)\na.ts:3:5: Warning: x unused (lint unusedvar)\n… and 1 more (1 hint)"
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	b, _ := json.Marshal(d[1].Code)
	if string(b) != "2322" {
		t.Fatalf("numeric code marshals as %s", b)
	}
}

// FuzzServerAnswers feeds arbitrary JSON to the decoders of server
// answers: they may fail, never panic.
func FuzzServerAnswers(f *testing.F) {
	for _, s := range []string{`null`, `[]`, `{"uri":"file:///a"}`, `[{"targetUri":"x"}]`, `{"contents":[1,{"kind":2}]}`,
		`{"uri":"file:///a","version":3,"diagnostics":[{"code":{"x":1},"severity":9}]}`, `[[[[`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		locs, err := decodeLocations(data)
		if err == nil {
			for _, l := range locs {
				_, _ = l.URI.Path()
			}
		}
		var h Hover
		_ = json.Unmarshal(data, &h)
		var p publishDiagnosticsParams
		if json.Unmarshal(data, &p) == nil {
			_ = FormatDiagnostics("f", p.Diagnostics, NewMapper(data), 3)
		}
		var caps serverCapabilities
		if json.Unmarshal(data, &caps) == nil {
			_ = caps.saveIncludesText()
		}
	})
}

// FuzzServersWith checks the lsp.servers parser: an entry is accepted or
// refused with a message, never a panic, and an accepted one names a
// language with a command or turns one off.
func FuzzServersWith(f *testing.F) {
	for _, s := range []string{"go=gopls", "zig .zig=zls -v", "python=", "=x", "a .b .c=", " = ", "x..=y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, entry string) {
		servers, err := ServersWith([]string{entry})
		if err != nil {
			if !strings.Contains(err.Error(), "lsp.servers entry") {
				t.Fatalf("error without context: %v", err)
			}
			return
		}
		for _, s := range servers {
			if s.Language == "" || s.Command == "" {
				t.Fatalf("server without language or command: %+v", s)
			}
		}
	})
}
