package agent

import (
	"bytes"
	"encoding/json"
	"testing"
)

// canonicalDecoded is canonicalJSON without its fast path: the oracle.
func canonicalDecoded(raw []byte) []byte {
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return bytes.TrimSpace(raw)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return bytes.TrimSpace(raw)
	}
	return b
}

func checkCanonicalFlat(t *testing.T, raw string) (fast bool) {
	t.Helper()
	got, ok := canonicalFlat([]byte(raw))
	if want := canonicalDecoded([]byte(raw)); ok && !bytes.Equal(got, want) {
		t.Errorf("canonicalFlat(%q) = %q, decoding gives %q", raw, got, want)
	}
	return ok
}

func TestCanonicalFlat(t *testing.T) {
	for raw, fast := range map[string]bool{
		`{"command":"echo step-4 >> steps.txt"}`:                                       true,
		` { "path" : "x.go", "n": 1.50, "b": true } `:                                  false, // keys not in order: decoded
		`{"a":1,"b":-0.5e+3,"c":null,"d":false,"e":"é\u2028"}`:                         false, // an escape: decoded
		"{\"a\":1,\"b\":-0.5e+3,\"c\":null,\"d\":false,\"e\":\"é\u2028\u2029 & <x>\"}": true,
		`{}`:               true,
		`{"a":1,"a":2}`:    false,
		`{"a":"\n"}`:       false,
		`{"a":{"b":1}}`:    false,
		`{"a":[1]}`:        false,
		`{"a":01}`:         false,
		`{"a":1.}`:         false,
		`{"a":1} {"b":2}`:  false,
		`{"a":tru}`:        false,
		"{\"a\":\"\xff\"}": false,
		`{"a b":1}`:        false,
		`[1,2]`:            false,
		``:                 false,
		`{"a":1,}`:         false,
	} {
		if got := checkCanonicalFlat(t, raw); got != fast {
			t.Errorf("canonicalFlat(%q): fast path %v, want %v", raw, got, fast)
		}
	}
}

func FuzzCanonicalFlat(f *testing.F) {
	for _, s := range []string{`{"command":"echo a >> b"}`, `{"a":1,"b":-2.5E-3,"c":"x<y"}`, `{"path":"a.go","limit":10}`, `{}`, `{"a":"\u00e9"}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) { checkCanonicalFlat(t, raw) })
}
