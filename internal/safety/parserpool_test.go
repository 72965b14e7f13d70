package safety

import (
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"mvdan.cc/sh/v3/syntax"
)

// brokenInputs leave a parser in the middle of something: a here
// document, a command substitution, a backquote, a regular expression.
var brokenInputs = []string{"cat <<EOF", "echo $(", "`a \\`", "[[ a =~ (", "case x in", "if true; then"}

// bashCommands add what only a bash parser reads (or reads so) to
// typicalCommands.
var bashCommands = append([]string{
	"[[ -f go.mod ]] && go vet ./...",
	"cat <<EOF > notes.txt\nrm -rf /\nEOF",
	"echo \"$(git rev-parse HEAD)\" `date`",
	"a=(x y); rm \"${a[@]}\"",
	"[[ $x =~ ^(a|b)$ ]] && ls",
}, typicalCommands...)

type poolVerdict struct {
	Verdict  Verdict
	ReadOnly bool
	Reason   string
}

// verdictsWith returns the Analyze and ReadOnly verdicts of bashCommands
// with every parse done by a parser that get returns; before each
// command, prime (if set) is parsed with it.
func verdictsWith(t *testing.T, get func() *syntax.Parser, prime func(p *syntax.Parser)) []poolVerdict {
	t.Helper()
	saved := parsers
	t.Cleanup(func() { parsers = saved })
	opts := testOpts()
	var out []poolVerdict
	for _, c := range bashCommands {
		p := get()
		parsers = &sync.Pool{New: func() any { return p }}
		if prime != nil {
			prime(p)
		}
		ok, reason := ReadOnly(c, opts)
		out = append(out, poolVerdict{Analyze(c, opts), ok, reason})
	}
	parsers = saved
	return out
}

// TestPooledParserCarriesNoState: the parser pool (analyze.go) gives a
// parser that may have failed on anything before; the verdicts must be
// those of a fresh parser. This pins mvdan.cc/sh's reset: a version
// whose Parse kept state across an error would change what runs without
// asking. The check can fail: a parser that reads differently (POSIX)
// changes verdicts (a reset that missed state could not be simulated
// without editing mvdan.cc/sh).
func TestPooledParserCarriesNoState(t *testing.T) {
	fresh := newParser
	want := verdictsWith(t, fresh, nil)
	for _, broken := range brokenInputs {
		one := fresh()
		got := verdictsWith(t, func() *syntax.Parser { return one }, func(p *syntax.Parser) {
			if _, err := p.Parse(strings.NewReader(broken), ""); err == nil {
				t.Fatalf("%q parsed without error", broken)
			}
		})
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("after %q, one parser's verdicts differ from a fresh one's (-fresh +reused):\n%s", broken, diff)
		}
	}
	posix := verdictsWith(t, func() *syntax.Parser { return syntax.NewParser(syntax.Variant(syntax.LangPOSIX)) }, nil)
	if cmp.Equal(want, posix) {
		t.Error("a POSIX parser gives the same verdicts: this comparison could not see a parser that differs")
	}
}
