package safety

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// Limits that keep the analysis fast on any input (the fuzz test holds
// them): nesting of scripts, simple commands analysed, findings kept.
const (
	maxDepth    = 10
	maxSteps    = 4000
	maxFindings = 64
	maxQuote    = 300 // longest Command text kept in a finding
)

// traits are facts about what a command does with its output, gathered
// while walking, for rules that span commands (curl … | sh).
type traits uint8

const (
	// tFetch: the output carries data fetched from the network.
	tFetch traits = 1 << iota
)

// Analyze parses command as bash and returns the findings for every simple
// command it would run, with the highest severity as the verdict. It reads
// nothing from the file system or the environment, so it is safe for
// concurrent use and gives the same answer for the same input.
func Analyze(command string, opts Options) Verdict {
	f, err := parse(command)
	return analyzeParsed(command, f, err, opts)
}

// analyzeParsed is Analyze on command as parse read it (f, or err).
func analyzeParsed(command string, f *syntax.File, err error, opts Options) Verdict {
	a := newAnalyzer(opts)
	a.parsedScript(newScope(command, &a.opts), command, command, f, err)
	a.uncalledFuncs()
	return a.verdict()
}

// analyzer holds the state of one Analyze call.
type analyzer struct {
	opts     Options
	findings []Finding
	seen     map[string]bool
	steps    int
	// active holds the bodies of functions being analysed, so recursion
	// (the heart of a fork bomb) does not recurse here too.
	active map[*syntax.Stmt]bool
	// defs are all functions defined anywhere, for uncalledFuncs.
	defs   []deferredFunc
	capped bool
}

// cleanAbs returns the absolute paths among ps, cleaned: ps itself when
// they all are already (the terminal tool's are), so nothing is copied.
func cleanAbs(ps []string) []string {
	if !slices.ContainsFunc(ps, func(p string) bool { return !filepath.IsAbs(p) || filepath.Clean(p) != p }) {
		return ps
	}
	var out []string
	for _, p := range ps {
		if filepath.IsAbs(p) {
			out = append(out, filepath.Clean(p))
		}
	}
	return out
}

func newAnalyzer(o Options) *analyzer { return &analyzer{opts: cleanOptions(o)} }

// cleanOptions keeps the absolute paths of o, cleaned, and fills in what
// the caller left out.
func cleanOptions(o Options) Options {
	o.Roots = cleanAbs(o.Roots)
	o.Allowed = cleanAbs(o.Allowed)
	o.TempDirs = cleanAbs(o.TempDirs)
	if len(o.TempDirs) == 0 {
		o.TempDirs = []string{"/tmp", "/var/tmp"}
	}
	if o.Home != "" && filepath.IsAbs(o.Home) {
		o.Home = filepath.Clean(o.Home)
	} else {
		// Where the home is does not matter for the verdict, only that ~
		// and $HOME are one: a stand-in that no real path equals keeps
		// `rm -rf ~` critical when the caller did not say.
		o.Home = unknownHome
	}
	switch {
	case o.Cwd != "" && filepath.IsAbs(o.Cwd):
		o.Cwd = filepath.Clean(o.Cwd)
	case len(o.Roots) > 0:
		o.Cwd = o.Roots[0]
	default:
		o.Cwd = ""
	}
	return o
}

func (a *analyzer) verdict() Verdict {
	v := Verdict{Findings: a.findings}
	slices.SortStableFunc(v.Findings, func(x, y Finding) int { return int(y.Severity - x.Severity) })
	if len(v.Findings) > 0 {
		v.Severity = v.Findings[0].Severity
	}
	return v
}

// add records a finding unless the same rule already fired for the same
// command and words.
func (a *analyzer) add(sev Severity, rule, reason, command string, words ...string) {
	command = quote(command)
	reason = display(reason)
	for i, w := range words {
		words[i] = display(w)
	}
	key := rule + "\x00" + command + "\x00" + strings.Join(words, "\x00")
	if a.seen[key] {
		return
	}
	if a.seen == nil {
		a.seen = map[string]bool{}
	}
	a.seen[key] = true
	if len(a.findings) >= maxFindings {
		// Keep the verdict honest when the list is full: a more severe
		// finding replaces the least severe one.
		i := slices.IndexFunc(a.findings, func(f Finding) bool { return f.Severity < sev })
		if i < 0 {
			return
		}
		a.findings = slices.Delete(a.findings, i, i+1)
	}
	a.findings = append(a.findings, Finding{Severity: sev, Rule: rule, Reason: reason, Words: words, Command: command})
}

// step counts one simple command; past maxSteps the analysis stops and
// says so, rather than let crafted input (functions calling each other,
// nested loops) take unbounded time.
func (a *analyzer) step(command string) bool {
	a.steps++
	if a.steps <= maxSteps {
		return true
	}
	if !a.capped {
		a.capped = true
		a.add(High, "too-complex", "The command is too large to check completely", command)
	}
	return false
}

// script parses text and analyses it in sc (which the caller prepared: the
// current shell's scope for eval, a fresh one for bash -c). origin is the
// command that carries the text, for findings about the text as a whole.
func (a *analyzer) script(sc *scope, text, origin string) traits {
	if sc.depth > maxDepth {
		a.add(High, "too-deeply-nested", fmt.Sprintf("Scripts are nested more than %d deep, so the innermost cannot be checked", maxDepth), origin)
		return 0
	}
	f, err := parse(text)
	return a.parsedScript(sc, text, origin, f, err)
}

// parsedScript is script on text as parse read it (f, or err).
func (a *analyzer) parsedScript(sc *scope, text, origin string, f *syntax.File, err error) traits {
	oldSrc := sc.src
	sc.src = text
	defer func() { sc.src = oldSrc }()
	if t, ok := a.rawBytesFindings(sc, text, origin, err); ok {
		return t
	}
	if err != nil {
		a.add(High, "unparseable", fmt.Sprintf("The shell cannot parse this (%s), so it cannot be checked", parseMessage(err)), origin)
		// bash runs the complete lines before the one with the error, so
		// those are analysed as well.
		if line := errorLine(err); line > 1 {
			if prefix := firstLines(text, line-1); prefix != "" {
				if pf, perr := parse(prefix); perr == nil {
					sc.src = prefix
					return a.walkFile(sc, pf)
				}
			}
		}
		return 0
	}
	return a.walkFile(sc, f)
}

func (a *analyzer) walkFile(sc *scope, f *syntax.File) traits {
	return a.walkStmts(sc, f.Stmts, nil)
}

// parsers are bash parsers to reuse: a syntax.Parser may parse again once
// it is done (Parse resets it), and making a new one for every parse
// (Analyze, and ReadOnly again, for every command the agent runs) cost
// 2.7 KB and, in BenchmarkAnalyze, about half the time. What a parse
// returns shares nothing with the parser, and Parse resets it, also
// after an error (TestPooledParserCarriesNoState pins that). A pointer,
// so that the test can put a parser of its own in.
var parsers = &sync.Pool{New: func() any { return newParser() }}

// newParser is the parser the checks read commands with.
func newParser() *syntax.Parser {
	return syntax.NewParser(syntax.KeepComments(false), syntax.Variant(syntax.LangBash))
}

// parse parses text as bash, unless it holds a byte bash reads otherwise
// than the parser (rawByte).
func parse(text string) (*syntax.File, error) {
	if err := rawByte(text); err != nil {
		return nil, err
	}
	return parseText(text)
}

func parseText(text string) (*syntax.File, error) {
	p := parsers.Get().(*syntax.Parser)
	defer parsers.Put(p)
	return p.Parse(strings.NewReader(text), "")
}

func errorLine(err error) int {
	var pe syntax.ParseError
	if errors.As(err, &pe) {
		return int(pe.Pos.Line())
	}
	var le syntax.LangError
	if errors.As(err, &le) {
		return int(le.Pos.Line())
	}
	return 0
}

func parseMessage(err error) string {
	var pe syntax.ParseError
	if errors.As(err, &pe) {
		return fmt.Sprintf("line %d: %s", pe.Pos.Line(), pe.Text)
	}
	var le syntax.LangError
	if errors.As(err, &le) {
		return fmt.Sprintf("line %d: %s is not bash", le.Pos.Line(), le.Feature)
	}
	return err.Error()
}

func firstLines(text string, n int) string {
	i := 0
	for ; n > 0; n-- {
		j := strings.IndexByte(text[i:], '\n')
		if j < 0 {
			return text
		}
		i += j + 1
	}
	return text[:i]
}

// text returns the source of node in the script sc is reading.
func (a *analyzer) text(sc *scope, n syntax.Node) string {
	if n == nil {
		return ""
	}
	start, end := n.Pos(), n.End()
	if !start.IsValid() || !end.IsValid() {
		return ""
	}
	s, e := int(start.Offset()), int(end.Offset())
	if s < 0 || e > len(sc.src) || s > e {
		return ""
	}
	return sc.src[s:e]
}

// quote shortens a command for a finding and makes control characters
// visible, so an approval card cannot be spoofed with \r or escapes.
func quote(s string) string {
	s = display(strings.TrimSpace(s))
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	if strings.IndexFunc(s, func(r rune) bool { return r != '\n' && r != '\t' && unicode.IsControl(r) }) >= 0 {
		s = strings.Map(func(r rune) rune {
			if r != '\n' && r != '\t' && unicode.IsControl(r) {
				return '\uFFFD'
			}
			return r
		}, s)
	}
	if len(s) > maxQuote {
		cut := maxQuote
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

// unknownHome stands for the home directory when Options.Home is empty.
const unknownHome = "/home/~"

// display shows the stand-ins for computed text and for an unknown home
// the way a person reads them.
func display(s string) string {
	s = strings.ReplaceAll(s, "${"+unknownVar+"}", "<computed>")
	return strings.ReplaceAll(s, unknownHome, "~")
}

// home returns $HOME as the script sees it, or "" when unknown.
func (a *analyzer) home(sc *scope) string {
	if v, ok := sc.vars["HOME"]; ok {
		return v.text
	}
	if sc.homeSet {
		return ""
	}
	return a.opts.Home
}

// lookup returns a variable's value when it is statically known.
func (a *analyzer) lookup(sc *scope, name string) (value, bool) {
	switch name {
	case unknownVar:
		return value{}, false
	case "HOME":
		h := a.home(sc)
		return value{text: h}, h != ""
	case "PWD":
		return value{text: sc.cwd}, sc.cwd != ""
	}
	v, ok := sc.vars[name]
	return v, ok
}
