package safety

import (
	"testing"
)

// FuzzAnalyze checks that the analyser never panics, stays within its work
// limits on any input, never rates input the shell cannot parse as none,
// and returns a well-formed, repeatable verdict.
func FuzzAnalyze(f *testing.F) {
	for _, tc := range append(analyzeCases(), attackCases()...) {
		f.Add(tc.command)
	}
	for _, cmd := range everydayCommands {
		f.Add(cmd)
	}
	for _, s := range analyzeSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, command string) {
		a := newAnalyzer(testOpts())
		a.script(newScope(command, &a.opts), command, command)
		a.uncalledFuncs()
		v := a.verdict()
		if a.steps > maxSteps+maxDepth+1 {
			t.Fatalf("analysed %d commands, past the limit %d", a.steps, maxSteps)
		}
		if len(v.Findings) > maxFindings {
			t.Fatalf("%d findings, past the cap", len(v.Findings))
		}
		if _, err := parse(command); err != nil && (v.Severity < High || !v.Has("unparseable")) {
			t.Fatalf("unparseable input rated %s:\n%s", v.Severity, describeVerdict(v))
		}
		highest := None
		for _, fd := range v.Findings {
			if fd.Rule == "" || fd.Reason == "" || fd.Severity < None || fd.Severity > Critical {
				t.Fatalf("malformed finding %+v", fd)
			}
			highest = maxSeverity(highest, fd.Severity)
		}
		if v.Severity != highest {
			t.Fatalf("verdict %s but highest finding %s", v.Severity, highest)
		}
		if again := Analyze(command, testOpts()); again.Severity != v.Severity || len(again.Findings) != len(v.Findings) {
			t.Fatalf("second analysis differs: %s vs %s", again.Severity, v.Severity)
		}
	})
}

// analyzeSeeds are FuzzAnalyze's seeds besides the tables: broken input,
// deep nesting, loops, interpreters cut off mid-code.
var analyzeSeeds = []string{
	"", "\x00", "$(", "`", "${", "<<EOF", "a=(", "f(){ f|f& };f", "${x:-$(${y:=$(z)})}",
	"bash -c \"bash -c 'bash -c \\\"rm -rf /\\\"'\"", "eval eval eval eval 'rm -rf /'",
	"for a in 1 2 3 4 5 6 7 8; do for b in 1 2 3 4 5 6 7 8; do for c in 1 2 3 4 5 6 7 8; do rm -rf $a$b$c; done; done; done",
	"xargs -I{} sh -c '{}'", "find / -exec sh -c 'find / -exec rm {} +' \\;",
	"python3 -c 'open(' ", "perl -e 'system(\"", "awk '{print > \"", "\\", "'", "\"",
	"perl -e 'unlink (((('", "perl -e 'system $x{'", "ruby -e 'system `'", "bash <(bash <(echo x))",
	"eval \"$(echo $(echo cm0= | base64 -d) | base64 -d)\"", "dd of=~", "x=~ y=a=~/b", "gzip -r ~",
	"git -c include.path= -C", "git config --add", "GIT_DIR=", "find -delete", "kill 1 -1 1",
}
