package wire

import (
	"slices"
	"testing"
)

func TestDocumentHandsOverWhatItCannotRead(t *testing.T) {
	cases := []struct {
		name string
		in   string
		ok   bool
		keys []string // keys seen, in order
	}{
		{name: "object", in: ` {"a":1, "b":[true,{"c":null}]} `, ok: true, keys: []string{"a", "b"}},
		{name: "empty object", in: `{}`, ok: true},
		{name: "trailing data", in: `{"a":1} x`, keys: []string{"a"}},
		{name: "two objects", in: `{"a":1}{"b":2}`, keys: []string{"a"}},
		{name: "array", in: `[1]`},
		{name: "missing comma", in: `{"a":1 "b":2}`, keys: []string{"a"}},
		{name: "trailing comma", in: `{"a":1,}`, keys: []string{"a"}},
		{name: "escaped key", in: `{"\u0061":1}`},
		{name: "known key in other case", in: `{"a":1,"KNOWN":1}`, keys: []string{"a", "KNOWN"}},
		{name: "truncated", in: `{"a":`, keys: []string{"a"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var s Scanner
			var keys []string
			ok := s.Document([]byte(tc.in), func(key []byte) bool {
				keys = append(keys, string(key))
				return s.SkipOther(key, "known")
			})
			if ok != tc.ok || !slices.Equal(keys, tc.keys) {
				t.Errorf("Document(%s) = %v, keys %q; want %v, %q", tc.in, ok, keys, tc.ok, tc.keys)
			}
		})
	}
}

func TestArrayAndIntTo(t *testing.T) {
	cases := []struct {
		name string
		in   string
		ok   bool
		want []int
	}{
		{name: "numbers", in: `[1, -2 ,30]`, ok: true, want: []int{1, -2, 30}},
		{name: "empty", in: `[ ]`, ok: true},
		{name: "fraction hands over", in: `[1,2.5]`, want: []int{1, 0}},
		{name: "not an array", in: `{"a":1}`},
		{name: "unclosed", in: `[1,`, want: []int{1, 0}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var s Scanner
			s.Reset([]byte(tc.in))
			var got []int
			ok := s.Array(func() bool {
				got = append(got, 0)
				return s.IntTo(&got[len(got)-1])
			})
			if ok != tc.ok || !slices.Equal(got, tc.want) {
				t.Errorf("Array(%s) = %v, %v; want %v, %v", tc.in, ok, got, tc.ok, tc.want)
			}
		})
	}
}
