package safety

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// noexecCases: does the command (maybe) switch on noexec? The first block
// is internal/shell's table from before Check; the rest are what reading
// the words as bash does finds besides.
var noexecCases = map[string]bool{
	"set -n":                            true,
	"set -en; echo x":                   true,
	"cd sub && set -o noexec":           true,
	"if true; then set -n; fi":          true,
	"builtin set -n":                    true,
	"(set -n)":                          true,
	"shopt -os noexec":                  true,
	"shopt -s -o noexec":                true,
	"echo a; set -e -u -n":              true,
	"set -e":                            false,
	"set +n":                            false,
	"set -- -n":                         false,
	"set x -n":                          false,
	"set -o pipefail":                   false,
	"echo set -n":                       false,
	`echo "a; set -n"`:                  false,
	"bash -c 'set -n; true'":            false,
	"grep -n set file":                  false,
	"# set -n\necho hi":                 false,
	"shopt -s nullglob":                 false,
	"shopt -o noexec":                   false,
	"git log --oneline | grep 'set -n'": false,
	"printf '%s\\n' set -n":             false,
	"echo x # then set -n\nset -euo pipefail": false,

	`s\et -n`:                        true,
	`"set" "-n"`:                     true,
	"set -o 'noexec'":                true,
	"X=1 set -n":                     true,
	"command builtin set -n":         true,
	"f() { set -n; }":                true,
	"echo $(set -n)":                 true,
	"set -$flags":                    true, // may hold an n
	"set -e -$flags":                 true,
	"set \"$@\"":                     false,
	"set -- \"$@\"":                  false,
	"cat <<E\nset -n\nE":             false, // here-document text
	"echo a{ set -n":                 false, // a{ is a word, set an argument
	"time -p set -n":                 true,
	"echo 'x' ; set -euo pipefail":   false,
	"cd sub; echo $(":                true, // unparseable: bash may run part of it
	"set -e\nif then":                true,
	"shopt -s -o \"$opt\" noexec":    true,
	"declare -r set=-n; echo $set":   false,
	"builtin":                        false,
	"command -v set":                 false,
	"case x in (set) set -n ;; esac": true,
	"echo \\\r\nset -n":              true, // a byte the parser reads otherwise than bash
	"echo a\x00b":                    true,
}

func TestSetsNoexec(t *testing.T) {
	for cmd, want := range noexecCases {
		if got := SetsNoexec(cmd); got != want {
			t.Errorf("SetsNoexec(%q) = %v, want %v", cmd, got, want)
		}
	}
}

// checkCorpus is every command the package's tests and fuzz seeds hold.
func checkCorpus() []string {
	var out []string
	for _, tc := range append(analyzeCases(), attackCases()...) {
		out = append(out, tc.command)
	}
	for _, tc := range readOnlyCases {
		out = append(out, tc.cmd)
	}
	for cmd := range noexecCases {
		out = append(out, cmd)
	}
	out = append(out, everydayCommands...)
	out = append(out, bashCommands...) // typicalCommands too
	out = append(out, brokenInputs...)
	out = append(out, analyzeSeeds...)
	for cmd := range statelessCases {
		out = append(out, cmd)
	}
	return append(out, installScript)
}

// checkAgrees fails t unless Check gives what Analyze, ReadOnly,
// SetsNoexec and Facts give.
func checkAgrees(t *testing.T, command string, opts Options) {
	t.Helper()
	c := Check(command, opts)
	if d := cmp.Diff(Analyze(command, opts), c.Verdict); d != "" {
		t.Fatalf("Check(%q).Verdict differs from Analyze (-Analyze +Check):\n%s", command, d)
	}
	if ok, why := ReadOnly(command, opts); ok != c.ReadOnly || why != c.Why {
		t.Fatalf("Check(%q) read-only %v %q, ReadOnly %v %q", command, c.ReadOnly, c.Why, ok, why)
	}
	if c.Command != command || c.Noexec != SetsNoexec(command) {
		t.Fatalf("Check(%q) noexec %v, SetsNoexec %v", command, c.Noexec, !c.Noexec)
	}
	if d := cmp.Diff(Facts(command), c.ShellFacts); d != "" {
		t.Fatalf("Check(%q).ShellFacts differs from Facts (-Facts +Check):\n%s", command, d)
	}
}

// TestCheckMatchesSeparateChecks is the differential test over the
// corpora, with the options of each table.
func TestCheckMatchesSeparateChecks(t *testing.T) {
	corpus := checkCorpus()
	for _, opts := range []Options{testOpts(), readOnlyOpts, {}} {
		for _, cmd := range corpus {
			checkAgrees(t, cmd, opts)
		}
	}
	if len(corpus) < 300 {
		t.Fatalf("the corpus has %d commands: a table went missing", len(corpus))
	}
}

func FuzzCheck(f *testing.F) {
	for _, cmd := range checkCorpus() {
		f.Add(cmd)
	}
	opts := testOpts()
	f.Fuzz(func(t *testing.T, command string) {
		checkAgrees(t, command, opts)
	})
}
