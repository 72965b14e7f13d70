package sandbox

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

// The profiles use paths that do not exist, so resolving links changes
// nothing and the golden files are the same on every machine.
func TestSeatbeltProfilesGolden(t *testing.T) {
	deny := []string{"/nonexistent/home/.ssh", "/nonexistent/home/.aws", `/nonexistent/home/we"ird\dir`}
	specs := map[string]Spec{
		"read-only": {Policy: ReadOnly, Writable: []string{"/nonexistent/proj"}, Own: []string{"/nonexistent/state/s1", "/nonexistent/tmp/s1"}, DenyRead: deny},
		"workspace-write": {Policy: WorkspaceWrite, Writable: []string{"/nonexistent/proj", "/nonexistent/home/.cache"},
			Own: []string{"/nonexistent/state/s1", "/nonexistent/tmp/s1"}, DenyRead: deny},
		"workspace-write-network": {Policy: WorkspaceWrite, Writable: []string{"/nonexistent/proj"}, Network: true},
		"workspace-write-caches": {Policy: WorkspaceWrite, Writable: []string{"/nonexistent/proj", "/nonexistent/home/.cache"},
			Caches: []string{"/nonexistent/home/.cache"}},
		"workspace-write-readonly": {Policy: WorkspaceWrite, Writable: []string{"/nonexistent/proj"},
			ReadOnly: []string{"/nonexistent/proj/vendor/lib/.git", "/nonexistent/proj/.git"}},
		"workspace-write-regex-root": {Policy: WorkspaceWrite, Writable: []string{`/nonexistent/my.proj (1)/we"ird\[x]+`},
			ReadOnly: []string{"/nonexistent/my.proj (1)/keys"}},
	}
	for name, spec := range specs {
		t.Run(name, func(t *testing.T) {
			got := SeatbeltProfile(spec)
			path := filepath.Join("testdata", "seatbelt-"+name+".sb")
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./internal/sandbox -update)", err)
			}
			if got != string(want) {
				t.Errorf("profile for %s differs from %s (run with -update after checking):\n%s", name, path, got)
			}
		})
	}
}

// TestSeatbeltGitIsCaseInsensitive: on a case-insensitive APFS volume
// .GIT is .git, so the deny rule matches any case, and only below the
// root quoted for the regex (its dots and brackets are literal).
func TestSeatbeltGitIsCaseInsensitive(t *testing.T) {
	root := "/nonexistent/a.b[c]+(d)"
	rule := sbReadOnly(root + "/.git")
	lit, ok := strings.CutPrefix(rule, "(regex ")
	if !ok || !strings.HasSuffix(lit, ")") {
		t.Fatalf("rule %s is not a regex", rule)
	}
	re, err := regexp.Compile(strings.NewReplacer(`\\`, `\`, `\"`, `"`).Replace(strings.Trim(strings.TrimSuffix(lit, ")"), `"`)))
	if err != nil {
		t.Fatalf("rule %s: %v", rule, err)
	}
	for path, want := range map[string]bool{
		root + "/.git": true, root + "/.GIT": true, root + "/.Git/hooks/pre-commit": true, root + "/.gIt/config": true,
		root + "/.gitmodules": false, root + "/.github/x": false, root + "/sub/.git": false,
		"/nonexistent/aXb[c]+(d)/.git": false, "/nonexistent/a.bc+(d)/.git": false, "/other/.git": false,
	} {
		if got := re.MatchString(path); got != want {
			t.Errorf("%s matches %s: %v, want %v", rule, path, got, want)
		}
	}
	if got := sbReadOnly("/p/keys"); got != `(subpath "/p/keys")` {
		t.Errorf("a read-only path other than .git: %s", got)
	}
}

// TestSeatbeltGitAtAnyDepth: the profile denies writing a .git at any
// depth below each writable place, in any case (a nested clone, a
// linked worktree's pointer, one planted later), checked with Go's
// engine on the regexes the profile holds; paths beside them stay
// writable.
func TestSeatbeltGitAtAnyDepth(t *testing.T) {
	root := "/nonexistent/a.b[c]+(d)"
	denied := sbDenied(t, Spec{Policy: WorkspaceWrite, Writable: []string{root, "/nonexistent/cache"}})
	for path, want := range map[string]bool{
		root + "/.git": true, root + "/.git/config": true,
		root + "/third_party/lib/.git": true, root + "/third_party/lib/.git/hooks/pre-commit": true,
		root + "/a/b/c/.GIT/config": true, root + "/wt/.Git": true, root + "/sub/.gIt/x": true,
		"/nonexistent/cache/pkg/x/.git/config": true,
		root + "/.gitignore":                   false, root + "/a/.github/x": false, root + "/a/x.git/config": false,
		root + "/a/.gitmodules": false, root + "/a/git/.gi": false,
		"/nonexistent/aXb[c]+(d)/x/.git": false, "/nonexistent/a.b[c]+(d)2/.git": false, "/other/x/.git": false,
	} {
		if got := denied(path); got != want {
			t.Errorf("%s denied: %v, want %v", path, got, want)
		}
	}
	// A build cache (Spec.Caches) keeps only its own .git: tools clone
	// into caches (cargo's git checkouts, pre-commit's ~/.cache).
	denied = sbDenied(t, Spec{Policy: WorkspaceWrite, Writable: []string{root, "/nonexistent/cache"}, Caches: []string{"/nonexistent/cache"}})
	for path, want := range map[string]bool{
		"/nonexistent/cache/.git/config": true, "/nonexistent/cache/x/.git/config": false, root + "/x/.git/config": true,
	} {
		if got := denied(path); got != want {
			t.Errorf("with a cache: %s denied: %v, want %v", path, got, want)
		}
	}
}

// sbDenied returns whether the regex deny rules of spec's profile match
// a path, checked with Go's engine.
func sbDenied(t *testing.T, spec Spec) func(string) bool {
	t.Helper()
	profile := SeatbeltProfile(spec)
	_, deny, ok := strings.Cut(profile, "(deny file-write*")
	if !ok {
		t.Fatalf("no deny rule in\n%s", profile)
	}
	var res []*regexp.Regexp
	unquote := strings.NewReplacer(`\\`, `\`, `\"`, `"`)
	for _, m := range regexp.MustCompile(`\(regex "((?:[^"\\]|\\.)*)"\)`).FindAllStringSubmatch(deny, -1) {
		res = append(res, regexp.MustCompile(unquote.Replace(m[1])))
	}
	if len(res) != len(spec.Writable) {
		t.Fatalf("want one regex per writable place, got %d in\n%s", len(res), deny)
	}
	return func(p string) bool {
		return slices.ContainsFunc(res, func(re *regexp.Regexp) bool { return re.MatchString(p) })
	}
}
