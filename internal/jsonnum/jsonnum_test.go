package jsonnum

import (
	"encoding/json"
	"testing"
)

func TestEnd(t *testing.T) {
	for _, tc := range []struct {
		in   string
		i    int
		want int
	}{
		{"0", 0, 1},
		{"-0", 0, 2},
		{"123,", 0, 3},
		{"-12.50e+3}", 0, 9},
		{"1E7", 0, 3},
		{"01", 0, 1}, // the number is 0; the 1 is the caller's to refuse
		{"x:12", 2, 4},
		{"", 0, 0},
		{"-", 0, 0},
		{"1.", 0, 0},
		{"1.e5", 0, 0},
		{"2e", 0, 0},
		{"2e+", 0, 0},
		{".5", 0, 0},
		{"+1", 0, 0},
		{"- 1", 0, 0},
		{"x", 0, 0},
	} {
		if got := End([]byte(tc.in), tc.i); got != tc.want {
			t.Errorf("End(%q, %d) = %d, want %d", tc.in, tc.i, got, tc.want)
		}
	}
}

// FuzzEnd: what End reads as a number is one for encoding/json, and a
// text that is only a number (no spaces around it) is read whole.
func FuzzEnd(f *testing.F) {
	for _, s := range []string{"0", "-1.5e-3", "01", "1.", "1e", "12 ", " 1", "9007199254740993", "-"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		j := End(b, 0)
		if j < 0 || j > len(b) {
			t.Fatalf("End(%q) = %d", b, j)
		}
		if j > 0 && !json.Valid(b[:j]) {
			t.Fatalf("End(%q) = %d: %q is not JSON", b, j, b[:j])
		}
		var n json.Number
		whole := len(b) > 0 && b[0] != ' ' && b[0] != '\t' && b[0] != '\n' && b[0] != '\r' &&
			b[len(b)-1] != ' ' && b[len(b)-1] != '\t' && b[len(b)-1] != '\n' && b[len(b)-1] != '\r' &&
			json.Unmarshal(b, &n) == nil && json.Valid(b) && (b[0] == '-' || (b[0] >= '0' && b[0] <= '9'))
		if whole != (j == len(b) && j > 0) {
			t.Fatalf("End(%q) = %d; encoding/json reads it as a number: %v", b, j, whole)
		}
	})
}
