package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestExetrimInitialisesFirst checks what internal/exetrim relies on: Go
// initialises it before any package outside the standard library, above
// all before chroma's lexer registry, whose initialisation touches
// megabytes of the executable. A new import in exetrim would move it
// later and make olly's start-up map those pages in 64 KiB–2 MiB blocks
// again.
func TestExetrimInitialisesFirst(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var order []string // "init PKG @0.1 ms, ..." for each package with work
	for _, line := range strings.Split(string(out), "\n") {
		if f := strings.Fields(line); len(f) > 2 && f[0] == "init" {
			order = append(order, f[1])
		}
	}
	at := func(pkg string) int {
		for i, p := range order {
			if p == pkg {
				return i
			}
		}
		t.Fatalf("%s not in the init trace:\n%s", pkg, strings.Join(order, "\n"))
		return -1
	}
	me := at("github.com/olly-agent/olly/internal/exetrim")
	for _, p := range order[:me] {
		if first, _, _ := strings.Cut(p, "/"); strings.Contains(first, ".") {
			t.Errorf("%s initialises before internal/exetrim", p)
		}
	}
	if chroma := at("github.com/alecthomas/chroma/v2/lexers"); chroma < me {
		t.Errorf("chroma's lexers initialise before internal/exetrim")
	}
}
