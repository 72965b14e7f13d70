package wire

import (
	"encoding/json"
	"testing"
)

var scanSeeds = []string{
	`{"a":[1,-2.5e+3,true,false,null,{"b":"c\n\u00e9\"\\"}],"d":{}}`, `"\ud83d\ude00"`, `"\u12"`, `01`, `-`, `1.`, `1e`,
	`[1,]`, `{"a":1,}`, `{"a" 1}`, `"tab	in string"`, "\"\xff\"", `  [ ]  `, `{"\u0061":1}`, `tru`, `nul`,
}

// FuzzScannerSkip checks that Skip accepts only valid JSON: whatever it
// reads completely, json.Valid must accept too.
func FuzzScannerSkip(f *testing.F) {
	for _, s := range scanSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		var s Scanner
		s.Reset(in)
		if s.Skip() && s.End() && !json.Valid(in) {
			t.Fatalf("Skip accepted invalid JSON %q", in)
		}
		s.Reset(in)
		if raw, ok := s.Raw(); ok && !json.Valid(raw) {
			t.Fatalf("Raw returned invalid JSON %q from %q", raw, in)
		}
	})
}

// FuzzScannerString checks decoded strings against encoding/json.
func FuzzScannerString(f *testing.F) {
	for _, s := range scanSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		var s Scanner
		s.Reset(in)
		got, ok := s.String()
		if !ok || !s.End() {
			return
		}
		var want string
		if err := json.Unmarshal(in, &want); err != nil {
			t.Fatalf("String accepted %q; encoding/json: %v", in, err)
		}
		if got != want {
			t.Fatalf("String(%q) = %q, encoding/json says %q", in, got, want)
		}
	})
}

func TestScannerInt(t *testing.T) {
	cases := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true}, {"-7", -7, true}, {"123456789012345678", 123456789012345678, true},
		{"1234567890123456789", 0, false}, {"01", 0, false}, {"1.5", 0, false}, {"1e3", 0, false}, {"-", 0, false}, {"x", 0, false},
	}
	for _, tc := range cases {
		var s Scanner
		s.Reset([]byte(tc.in))
		n, ok := s.Int()
		if ok && !s.End() {
			ok = false
		}
		if ok != tc.ok || (ok && n != tc.want) {
			t.Errorf("Int(%q) = %d %v, want %d %v", tc.in, n, ok, tc.want, tc.ok)
		}
	}
}

func TestFoldsTo(t *testing.T) {
	if !FoldsTo([]byte("Content"), "content") || FoldsTo([]byte("contents"), "content") || FoldsTo([]byte("x"), "y", "z") {
		t.Error("FoldsTo")
	}
}
