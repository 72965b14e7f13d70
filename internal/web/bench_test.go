package web

import (
	"bytes"
	"os"
	"testing"
)

// BenchmarkToMarkdown converts a page of about 100 KB (the sample page's
// body repeated): the cost web_fetch adds after the download.
func BenchmarkToMarkdown(b *testing.B) {
	page, err := os.ReadFile("testdata/page.html")
	if err != nil {
		b.Fatal(err)
	}
	body := bytes.Repeat(page, 70)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := ToMarkdown(bytes.NewReader(body), nil); err != nil {
			b.Fatal(err)
		}
	}
}
