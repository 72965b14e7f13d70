package jsonnum

import (
	"bytes"
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

// FuzzEnd checks End against encoding/json: it reads the longest number
// b begins with, or none when a fraction or an exponent after it has no
// digits ("1.x", "2e+"). Checking only that what End read is a number
// would not see it stop early before more text ("1e5," read as "1"), or
// take "2e+" for the number 2.
func FuzzEnd(f *testing.F) {
	for _, s := range []string{"0", "-1.5e-3", "01", "1.", "1e", "12 ", " 1", "9007199254740993", "-",
		"1e5,", "1.5.5", "1.x", "-0.e"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		want := longest(b)
		if k := want; k < len(b) {
			// A fraction or exponent begun without digits ("1.x",
			// "2e+"), where the number has none yet, makes none.
			if b[k] == '.' && !bytes.ContainsAny(b[:k], ".eE") || (b[k] == 'e' || b[k] == 'E') && !bytes.ContainsAny(b[:k], "eE") {
				want = 0
			}
		}
		if j := End(b, 0); j != want {
			t.Fatalf("End(%q) = %d, want %d (encoding/json reads a number of %d bytes there)", b, j, want, longest(b))
		}
		if i := len(b) / 2; End(b, i) != i+End(b[i:], 0) {
			t.Fatalf("End(%q, %d) = %d, End(%q, 0) = %d", b, i, End(b, i), b[i:], End(b[i:], 0))
		}
	})
}

// longest is the length of the longest number b begins with, for
// encoding/json (0: none).
func longest(b []byte) int {
	for k := len(b); k > 0; k-- {
		last := b[k-1]
		if (b[0] == '-' || b[0] >= '0' && b[0] <= '9') && last != ' ' && last != '\t' && last != '\n' && last != '\r' &&
			json.Valid(b[:k]) {
			return k
		}
	}
	return 0
}
