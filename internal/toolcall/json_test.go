package toolcall

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// parseAll parses s in one feed, repairing it if it is cut off.
func parseAll(s string, lenientQuotes bool) (out string, repaired, ok bool) {
	p := newParser(0, lenientQuotes)
	p.feed([]byte(s))
	if p.open() {
		repaired = p.finish()
	}
	if !p.done() {
		return "", false, false
	}
	return string(p.root.appendJSON(nil)), repaired, true
}

// parseBytewise parses s fed one byte at a time, as a stream would.
func parseBytewise(s string, lenientQuotes bool) (out string, repaired, ok bool) {
	p := newParser(0, lenientQuotes)
	b := []byte(s)
	for i := 1; i <= len(b) && p.open(); i++ {
		p.feed(b[:i])
	}
	if p.open() {
		repaired = p.finish()
	}
	if !p.done() {
		return "", false, false
	}
	return string(p.root.appendJSON(nil)), repaired, true
}

func TestParser(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		lenient  bool // lenientQuotes
		want     string
		repaired bool
		fail     bool
	}{
		{name: "strict object", in: `{"a": 1, "b": [true, false, null], "c": {"d": "e"}}`, want: `{"a":1,"b":[true,false,null],"c":{"d":"e"}}`},
		{name: "numbers kept verbatim", in: `{"n": -12.5e+3, "z": 0, "big": 12345678901234567890}`, want: `{"n":-12.5e+3,"z":0,"big":12345678901234567890}`},
		{name: "member order kept", in: `{"z": 1, "a": 2, "m": 3}`, want: `{"z":1,"a":2,"m":3}`},
		{name: "duplicate keys keep the first", in: `{"a": 1, "a": 2}`, want: `{"a":1}`},
		{name: "braces and brackets in strings", in: `{"s": "} ] { [ \" ' :,"}`, want: `{"s":"} ] { [ \" ' :,"}`},
		{name: "escapes", in: `{"s": "a\nb\tc\\d\/e\"f\u00e9\b\f\r"}`, want: `{"s":"a\nb\tc\\d/e\"fé\u0008\u000c\r"}`},
		{name: "surrogate pair", in: `{"s": "\ud83d\ude00"}`, want: `{"s":"😀"}`},
		{name: "lone surrogates become U+FFFD", in: `{"s": "\ud800x\udc00\ud800\ud83d\ude00"}`, want: `{"s":"` + "\ufffdx\ufffd\ufffd😀" + `"}`},
		{name: "trailing commas", in: `{"a": [1, 2,], "b": {"c": 1,},}`, want: `{"a":[1,2],"b":{"c":1}}`},
		{name: "single quotes", in: `{'a': 'it"s', "b": 'x\'y'}`, want: `{"a":"it\"s","b":"x'y"}`},
		{name: "python literals", in: `{"a": True, "b": False, "c": None}`, want: `{"a":true,"b":false,"c":null}`},
		{name: "literal control characters in strings", in: "{\"s\": \"line1\nline2\ttab\"}", want: `{"s":"line1\nline2\ttab"}`},
		{name: "unknown escapes kept literally", in: `{"re": "\d+\.\w"}`, want: `{"re":"\\d+\\.\\w"}`},
		{name: "bad unicode escape kept literally", in: `{"s": "\u12G4"}`, want: `{"s":"\\u12G4"}`},
		{name: "invalid UTF-8 becomes U+FFFD", in: "{\"s\": \"a\xffb\"}", want: `{"s":"a\ufffdb"}`},
		{name: "empty containers", in: `{"a": {}, "b": []}`, want: `{"a":{},"b":[]}`},
		{name: "array root", in: `[{"a": 1}, {"b": 2}]`, want: `[{"a":1},{"b":2}]`},
		{name: "stops at the end of the root", in: `{"a": 1} trailing {"b"`, want: `{"a":1}`},

		{name: "lenient quotes: stray quotes kept", in: `{"c": "print("hi")"}`, lenient: true, want: `{"c":"print(\"hi\")"}`},
		{name: "lenient quotes: quote then space then text", in: `{"c": "say " now"}`, lenient: true, want: `{"c":"say \" now"}`},
		{name: "lenient quotes: valid JSON unchanged", in: `{"a": "x", "b": ["y", "z"]}`, lenient: true, want: `{"a":"x","b":["y","z"]}`},
		{name: "strict quotes: stray quote fails", in: `{"c": "print("hi")"}`, fail: true},

		{name: "unquoted key fails", in: `{a: 1}`, fail: true},
		{name: "missing colon fails", in: `{"a" 1}`, fail: true},
		{name: "missing comma fails", in: `[1 2]`, fail: true},
		{name: "leading zero fails", in: `{"a": 01}`, fail: true},
		{name: "bad literal fails", in: `{"a": tru}`, fail: true},
		{name: "prose brace fails", in: `{ this is prose }`, fail: true},
		{name: "code brace fails", in: "{\n\treturn x\n}", fail: true},
		{name: "mismatched close fails", in: `{"a": [1}`, fail: true},

		{name: "cut in a string value", in: `{"path": "x.go", "content": "package main\nfunc`, want: `{"path":"x.go","content":"package main\nfunc"}`, repaired: true},
		{name: "cut after a key", in: `{"path": "x.go", "content"`, want: `{"path":"x.go"}`, repaired: true},
		{name: "cut after a colon", in: `{"path": "x.go", "content": `, want: `{"path":"x.go"}`, repaired: true},
		{name: "cut in a key", in: `{"path": "x.go", "cont`, want: `{"path":"x.go"}`, repaired: true},
		{name: "cut after a comma", in: `{"a": [1, 2,`, want: `{"a":[1,2]}`, repaired: true},
		{name: "cut in a number", in: `{"a": 12`, want: `{"a":12}`, repaired: true},
		{name: "cut in an incomplete number", in: `{"a": 1, "b": 1.`, want: `{"a":1}`, repaired: true},
		{name: "cut in a literal", in: `{"a": 1, "b": tr`, want: `{"a":1}`, repaired: true},
		{name: "cut in an escape", in: `{"s": "ab\`, want: `{"s":"ab"}`, repaired: true},
		{name: "cut in a unicode escape", in: `{"s": "ab\u00`, want: `{"s":"ab"}`, repaired: true},
		{name: "cut after a high surrogate", in: `{"s": "\ud83d`, want: `{"s":"` + "\ufffd" + `"}`, repaired: true},
		{name: "cut in nested containers", in: `{"a": {"b": [{"c": "d`, want: `{"a":{"b":[{"c":"d"}]}}`, repaired: true},
		{name: "cut right after the brace", in: `{`, want: `{}`, repaired: true},
		{name: "cut after a lenient quote", in: `{"a": "x"`, lenient: true, want: `{"a":"x"}`, repaired: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, parse := range []func(string, bool) (string, bool, bool){parseAll, parseBytewise} {
				got, repaired, ok := parse(tt.in, tt.lenient)
				if tt.fail {
					if ok {
						t.Fatalf("parsed %q as %s, want failure", tt.in, got)
					}
					continue
				}
				if !ok {
					t.Fatalf("failed to parse %q", tt.in)
				}
				if got != tt.want || repaired != tt.repaired {
					t.Fatalf("parse %q = %s (repaired %v), want %s (repaired %v)", tt.in, got, repaired, tt.want, tt.repaired)
				}
				if !json.Valid([]byte(got)) {
					t.Fatalf("output %s is not valid JSON", got)
				}
			}
		})
	}
}

func TestParserDepthLimit(t *testing.T) {
	deep := strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1)
	if _, _, ok := parseAll(deep, false); ok {
		t.Fatalf("parsed %d levels of nesting, want failure beyond %d", maxDepth+1, maxDepth)
	}
	ok := strings.Repeat("[", maxDepth) + strings.Repeat("]", maxDepth)
	if _, _, parsed := parseAll(ok, false); !parsed {
		t.Fatalf("failed on %d levels of nesting", maxDepth)
	}
}

func TestParserFailOffset(t *testing.T) {
	p := newParser(10, false)
	buf := []byte(strings.Repeat(" ", 10) + `{"a": 1 x}`)
	p.feed(buf)
	if !p.failed() || p.failAt != 18 {
		t.Fatalf("failed=%v at %d, want failure at 18 (the x)", p.failed(), p.failAt)
	}
}

func TestAppendString(t *testing.T) {
	for _, s := range []string{"", "plain", "quote\" back\\ nl\n cr\r tab\t", "\x00\x01\x1f\x7f", "é 😀 \u2028", "bad \xff\xfe utf8", strings.Repeat("x", 1000)} {
		b := appendString(nil, s)
		var back string
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("appendString(%q) = %s: not valid JSON: %v", s, b, err)
		}
		want, _ := json.Marshal(s)
		var wantBack string
		_ = json.Unmarshal(want, &wantBack)
		if back != wantBack {
			t.Fatalf("appendString(%q) decodes to %q, want %q", s, back, wantBack)
		}
	}
}

// FuzzParser checks the lenient parser against encoding/json: whatever
// encoding/json accepts as an object or array, the parser reads the same
// way, fed at once or byte by byte, with or without lenient quotes; and it
// never panics.
func FuzzParser(f *testing.F) {
	for _, s := range []string{
		`{"a": 1}`, `[1, "two", {"three": [null, true]}]`, `{"s": "\ud83d\ude00 \" \\ \/"}`,
		`{"a": {"b": {"c": []}}}`, `{'a': True,}`, `{"a": "b`, `[{"name": "read_file"}]`, "{\u201ca\u201d: \u201cb \u2014 c\u201d}",
		`{a: """x "" y""", $b_1: '''z''', "c": ""}`,
		"{\"a\": 1 // one\n, /* two */ b: [2 /**/, 3]// x",
		"{\"a\": 1\n\"b\": 'c'\nd: [1]\r\n\"e\": {}}",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, _, ok := parseAll(s, false)
		got2, _, ok2 := parseBytewise(s, false)
		if ok != ok2 || got != got2 {
			t.Fatalf("one feed gives %q (%v), byte by byte %q (%v)", got, ok, got2, ok2)
		}
		if ok && !json.Valid([]byte(got)) {
			t.Fatalf("output %q is not valid JSON", got)
		}
		// Lenient parsing (tagged calls) is resumable too.
		l1, _, ok1 := parseAll(s, true)
		if l2, _, ok2 := parseBytewise(s, true); ok1 != ok2 || l1 != l2 {
			t.Fatalf("lenient: one feed gives %q (%v), byte by byte %q (%v)", l1, ok1, l2, ok2)
		}
		t1 := bytes.TrimLeft([]byte(s), " \t\r\n")
		if !json.Valid([]byte(s)) || len(t1) == 0 || (t1[0] != '{' && t1[0] != '[') || hasDuplicateKeys(s) {
			return
		}
		p := newParser(0, false)
		b := []byte(s)
		p.feed(b)
		if !p.done() {
			t.Fatalf("valid JSON %q: parser state %d (%s at %d)", s, p.st, p.failMsg(), p.failAt)
		}
		var want, have any
		_ = json.Unmarshal(b, &want)
		if err := json.Unmarshal(p.root.appendJSON(nil), &have); err != nil {
			t.Fatalf("re-encoded %q is invalid: %v", s, err)
		}
		wb, _ := json.Marshal(want)
		hb, _ := json.Marshal(have)
		if !bytes.Equal(wb, hb) {
			t.Fatalf("valid JSON %q read as %s, encoding/json reads %s", s, hb, wb)
		}
		// The unescaped-quote guess never changes how valid JSON reads.
		if lenient, _, ok := parseAll(s, true); !ok || lenient != got {
			t.Fatalf("valid JSON %q read as %q with lenient quotes, %q without", s, lenient, got)
		}
	})
}

// hasDuplicateKeys reports whether some object in the valid JSON s repeats
// a member name (encoding/json keeps the last, the parser the first).
func hasDuplicateKeys(s string) bool {
	dec := json.NewDecoder(strings.NewReader(s))
	type obj struct {
		keys   map[string]bool
		expect bool // the next string token is a key
	}
	var stack []*obj
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		top := (*obj)(nil)
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{':
				if top != nil && top.keys != nil {
					top.expect = true
				}
				stack = append(stack, &obj{keys: map[string]bool{}, expect: true})
				continue
			case '[':
				if top != nil && top.keys != nil {
					top.expect = true
				}
				stack = append(stack, &obj{})
				continue
			default:
				stack = stack[:len(stack)-1]
				continue
			}
		case string:
			if top != nil && top.keys != nil && top.expect {
				if top.keys[v] {
					return true
				}
				top.keys[v] = true
				top.expect = false
				continue
			}
		}
		if top != nil && top.keys != nil {
			top.expect = true
		}
	}
}
