package frontmatter

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParse(t *testing.T) {
	cases := []struct {
		name   string
		in     string
		fields map[string]string
		body   string
		err    string
	}{
		{"none", "just a body\n", map[string]string{}, "just a body\n", ""},
		{"fields", "---\nname: review\ndescription: \"Review: carefully\"\nmode: plan\n---\nBody $ARGUMENTS\n",
			map[string]string{"name": "review", "description": "Review: carefully", "mode": "plan"}, "Body $ARGUMENTS\n", ""},
		{"crlf and bom", "\xef\xbb\xbf---\r\nname: x\r\n---\r\nbody\r\n", map[string]string{"name": "x"}, "body\r\n", ""},
		{"number kept as text", "---\nversion: 1.10\nok: true\n---\n", map[string]string{"version": "1.10", "ok": "true"}, "", ""},
		{"empty", "---\n---\nbody", map[string]string{}, "body", ""},
		{"multi-line", "---\ndescription: >\n  one\n  two\n---\nb", map[string]string{"description": "one two\n"}, "b", ""},
		{"unclosed", "---\nname: x\nbody", nil, "", "not closed"},
		{"list", "---\ntools: [a, b]\n---\n", nil, "", "single value"},
		{"not a mapping", "---\n- a\n---\n", nil, "", "mapping"},
		{"bad yaml", "---\nname: [\n---\n", nil, "", "not valid YAML"},
		{"dashes later are body", "text\n---\nname: x\n---\n", map[string]string{}, "text\n---\nname: x\n---\n", ""},
		{"alias", "---\na: &x y\nb: *x\n---\n", nil, "", "aliases"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fields, body, err := Parse([]byte(tc.in))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.fields, fields); d != "" || body != tc.body {
				t.Errorf("fields (-want +got):\n%s\nbody %q, want %q", d, body, tc.body)
			}
		})
	}
}

func TestParseTooLarge(t *testing.T) {
	in := "---\ndescription: " + strings.Repeat("x", MaxFrontMatter) + "\n---\n"
	if _, _, err := Parse([]byte(in)); err == nil || !strings.Contains(err.Error(), "at most") {
		t.Errorf("err = %v", err)
	}
}

// FuzzParse: any input either parses or is an error; never a panic, and a
// parsed body is a suffix of the input.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"", "---\n", "---\n---\n", "---\nname: x\ndescription: y\n---\nbody", "---\na: [\n---\n",
		"---\na: &x [1]\nb: *x\n---\n", "---\r\nname: x\r\n...\r\n", "\xef\xbb\xbf---\nk: v\n---\n", "---\n? [a]\n: b\n---\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fields, body, err := Parse(data)
		if err != nil {
			return
		}
		if fields == nil {
			t.Fatal("nil fields without an error")
		}
		if !strings.HasSuffix(string(data), body) {
			t.Fatalf("body %q is not a suffix of the input", body)
		}
	})
}
