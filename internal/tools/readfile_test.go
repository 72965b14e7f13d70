package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/olly-agent/olly/internal/approval"
	"github.com/olly-agent/olly/internal/event"
)

func TestReadFileChunkEvents(t *testing.T) {
	h := newHarness(t, map[string]string{"src/main.go": numbered(250)})
	res := h.call("read_file", map[string]any{"path": "src/main.go"})
	if res.IsError {
		t.Fatal(res.Content)
	}
	type chunk struct {
		id, status, text, detail, file string
		start                          int
	}
	var got []chunk
	for _, a := range h.rec.actions() {
		got = append(got, chunk{a.ActionID, a.Status, a.Text, a.Detail, a.FilePath, a.StartLine})
	}
	want := []chunk{
		{"a1", "running", "Reading main.go", "", "", 0},
		{"a1:L101", "success", "Read main.go", "lines 101–200", "src/main.go", 101},
		{"a1:L201", "success", "Read main.go", "lines 201–250", "src/main.go", 201},
		{"a1", "success", "Read main.go", "lines 1–100", "src/main.go", 1},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("actions:\n got %v\nwant %v", got, want)
	}
	chunks := map[string]bool{}
	for _, c := range got {
		if strings.HasPrefix(c.detail, "lines ") {
			chunks[c.id] = true
		}
	}
	if len(chunks) != 3 {
		t.Fatalf("%d chunk actions, want 3", len(chunks))
	}
	mustContain(t, res.Content, "src/main.go — lines 1–250 of 250\n", "     1\tline 1\n", "   250\tline 250")
	for _, a := range h.rec.actions() {
		if a.CheckpointID != "" {
			t.Fatal("a read chunk carries a checkpoint id (seed: only edits do)")
		}
	}
}

func TestReadFileArguments(t *testing.T) {
	h := newHarness(t, map[string]string{"notes.txt": numbered(50)})
	tests := []struct {
		name    string
		args    map[string]any
		isError bool
		want    []string
		not     []string
	}{
		{"path", map[string]any{"path": "notes.txt"}, false, []string{"lines 1–50 of 50", "    50\tline 50"}, nil},
		{"file alias", map[string]any{"file": "notes.txt"}, false, []string{"lines 1–50 of 50"}, nil},
		{"filePath alias", map[string]any{"filePath": "notes.txt"}, false, []string{"lines 1–50 of 50"}, nil},
		{"range", map[string]any{"path": "notes.txt", "startLine": 10, "endLine": 12}, false,
			[]string{"lines 10–12 of 50", "    10\tline 10\n", "    12\tline 12"}, []string{"line 13", "line 9\n"}},
		{"quoted numbers", map[string]any{"path": "notes.txt", "startLine": "48"}, false, []string{"lines 48–50 of 50"}, nil},
		{"zero start is the first line", map[string]any{"path": "notes.txt", "startLine": 0, "endLine": 1}, false, []string{"lines 1–1 of 50"}, nil},
		{"offset and limit", map[string]any{"path": "notes.txt", "offset": 5, "limit": 2}, false, []string{"lines 5–6 of 50"}, nil},
		{"end past the end", map[string]any{"path": "notes.txt", "startLine": 49, "endLine": 500}, false, []string{"lines 49–50 of 50"}, []string{"To read on"}},
		{"missing path", map[string]any{}, true, []string{"needs a path"}, nil},
		{"start past the end", map[string]any{"path": "notes.txt", "startLine": 80}, true, []string{"has 50 lines", "startLine 80"}, nil},
		{"end before start", map[string]any{"path": "notes.txt", "startLine": 9, "endLine": 3}, true, []string{"before startLine"}, nil},
		{"not a number", map[string]any{"path": "notes.txt", "startLine": "ten"}, true, []string{"whole number"}, nil},
		{"no such file", map[string]any{"path": "nope.txt"}, true, []string{"does not exist"}, nil},
		{"directory", map[string]any{"path": "."}, true, []string{"is a directory", "list_files"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := h.call("read_file", tc.args)
			if res.IsError != tc.isError {
				t.Fatalf("IsError = %v: %s", res.IsError, res.Content)
			}
			mustContain(t, res.Content, tc.want...)
			mustNotContain(t, res.Content, tc.not...)
		})
	}
}

func TestReadFileRefusesBinary(t *testing.T) {
	h := newHarness(t, map[string]string{
		"nul.bin":    "text\x00more",
		"latin1.txt": "caf\xe9 au lait\n",
		"cut.txt":    strings.Repeat("a", sniffBytes-1) + "é and more\n", // a rune cut by the sample is fine
	})
	for _, name := range []string{"nul.bin", "latin1.txt"} {
		res := h.call("read_file", map[string]any{"path": name})
		if !res.IsError || !strings.Contains(res.Content, "binary file") {
			t.Fatalf("%s: %+v", name, res)
		}
	}
	if res := h.call("read_file", map[string]any{"path": "cut.txt"}); res.IsError {
		t.Fatalf("cut.txt: %s", res.Content)
	}
}

func TestReadFileLimits(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 120000; i++ {
		fmt.Fprintf(&b, "row %06d %s\n", i, strings.Repeat("x", 60))
	}
	long := strings.Repeat("é", 3000) // 6000 bytes
	h := newHarness(t, map[string]string{
		"big.txt":   b.String(),
		"wide.txt":  "short\n" + long + "\nend",
		"crlf.txt":  "one\r\ntwo\r\n",
		"empty.txt": "x",
	})
	if err := os.WriteFile(filepath.Join(root(h.ws), "empty.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}

	res := h.call("read_file", map[string]any{"path": "big.txt"})
	mustContain(t, res.Content, "big.txt — lines 1–2000 of 120000", "[Showing lines 1–2000 of 120000", "startLine=2001")
	if n := strings.Count(res.Content, "\trow "); n != 2000 {
		t.Fatalf("%d lines returned, want 2000", n)
	}
	res = h.call("read_file", map[string]any{"path": "big.txt", "startLine": 119999})
	mustContain(t, res.Content, "lines 119999–120000 of 120000", "row 120000")
	mustNotContain(t, res.Content, "To read on")

	small := ReadFile{MaxBytes: 1000}
	reg, _ := NewRegistry(small)
	out := reg.Execute(t.Context(), h.env, Call{Name: "read_file", Args: []byte(`{"path":"big.txt"}`), ActionID: "x"})
	mustContain(t, out.Result.Content, "lines 1–13 of 120000", "startLine=14")

	res = h.call("read_file", map[string]any{"path": "wide.txt"})
	mustContain(t, res.Content, "lines 1–3 of 3", "[… 4000 more bytes]", "[1 lines longer than 2000 bytes were cut.]", "\tend")
	if !strings.Contains(res.Content, strings.Repeat("é", 1000)+" [") {
		t.Fatal("the long line was not cut on a rune boundary at 2000 bytes")
	}
	res = h.call("read_file", map[string]any{"path": "crlf.txt"})
	mustContain(t, res.Content, "(CRLF line endings)", "     1\tone\n", "     2\ttwo")
	mustNotContain(t, res.Content, "\r")
	res = h.call("read_file", map[string]any{"path": "empty.txt"})
	if res.IsError || !strings.Contains(res.Content, "empty (0 lines)") {
		t.Fatalf("%+v", res)
	}
}

func TestReadFileSpecialFile(t *testing.T) {
	h := newHarness(t, nil)
	if err := syscall.Mkfifo(filepath.Join(root(h.ws), "pipe"), 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	res := h.call("read_file", map[string]any{"path": "pipe"})
	if !res.IsError || !strings.Contains(res.Content, "not a regular file") {
		t.Fatalf("%+v", res)
	}
}

func TestReadFileOutsideAsksForTheDirectory(t *testing.T) {
	h := newHarness(t, nil)
	outside, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	files(t, outside, map[string]string{"lib/x.txt": "hello\n"})
	target := filepath.Join(outside, "lib", "x.txt")

	req, res := h.answering("read_file", map[string]any{"path": target}, approval.Answer{})
	if req.Kind != event.ApprovalDirectory || req.FilePath != filepath.Join(outside, "lib") {
		t.Fatalf("request = %+v", req)
	}
	if !res.Denied || strings.Contains(res.Content, "hello") {
		t.Fatalf("denied read returned %+v", res)
	}
	if len(h.ws.Allowed()) != 0 {
		t.Fatal("a denied request allowed the directory")
	}

	_, res = h.answering("read_file", map[string]any{"path": target}, approval.Answer{Approve: true})
	if res.IsError || !strings.Contains(res.Content, "hello") {
		t.Fatalf("approved read: %+v", res)
	}
	// Allowed for the session: no second question.
	if res := h.call("read_file", map[string]any{"path": target}); res.IsError {
		t.Fatal(res.Content)
	}
}

func TestReadArtifact(t *testing.T) {
	h := newHarness(t, nil)
	dir := t.TempDir()
	h.env.ArtifactDir = dir
	if err := os.WriteFile(filepath.Join(dir, "shell-s1-1-out-9.log"), []byte(numbered(300)), 0o600); err != nil {
		t.Fatal(err)
	}
	res := h.call("read_file", map[string]any{"path": "artifact://shell-s1-1-out-9.log", "startLine": 150, "endLine": 160})
	mustContain(t, res.Content, "artifact://shell-s1-1-out-9.log — lines 150–160 of 300", "   150\tline 150")
	res = h.call("read_file", map[string]any{"path": filepath.Join(dir, "shell-s1-1-out-9.log")})
	mustContain(t, res.Content, "lines 1–300 of 300")
	for _, bad := range []string{"artifact://../etc/passwd", "artifact://", "artifact://nope.log"} {
		if res := h.call("read_file", map[string]any{"path": bad}); !res.IsError {
			t.Fatalf("%s: %+v", bad, res)
		}
	}
}
