package web

import (
	"net/url"
	"os"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzToMarkdown: any bytes convert without a panic or a hang, to valid
// UTF-8 with no run of blank lines, the same way twice, and never with a
// script's text.
func FuzzToMarkdown(f *testing.F) {
	page, _ := os.ReadFile("testdata/page.html")
	f.Add(string(page))
	f.Add(`<table><tr><td><table><tr><td>x</td></tr></table></td></tr></table>`)
	f.Add(`<ol><li><pre>` + "```" + `</pre></li></ol><blockquote><ul><li>a</li></ul></blockquote>`)
	base, _ := url.Parse("https://example.com/dir/page.html")
	f.Fuzz(func(t *testing.T, in string) {
		_, md, err := ToMarkdown(strings.NewReader(in), base)
		if err != nil {
			return
		}
		if !utf8.ValidString(md) {
			t.Fatalf("invalid UTF-8 out of %q", in)
		}
		if strings.Contains(md, "\n\n\n") {
			t.Fatalf("a run of blank lines out of %q:\n%q", in, md)
		}
		_, again, _ := ToMarkdown(strings.NewReader(in), base)
		if again != md {
			t.Fatalf("two conversions differ for %q", in)
		}
		// A script's text never reaches the model.
		_, withScript, _ := ToMarkdown(strings.NewReader("<script>FUZZSECRET</script>"+in), base)
		if strings.Contains(withScript, "FUZZSECRET") && !strings.Contains(in, "FUZZSECRET") {
			t.Fatalf("script text in the Markdown of %q", in)
		}
	})
}
