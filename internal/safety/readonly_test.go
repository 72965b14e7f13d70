package safety

import (
	"strings"
	"testing"
)

// readOnlyOpts and readOnlyCases are TestReadOnly's table (also a corpus
// of the differential test of Check).
var readOnlyOpts = Options{Roots: []string{"/work/proj"}, Cwd: "/work/proj/src", Home: "/home/me", Allowed: []string{"/opt/shared"}}

var readOnlyCases = []struct {
	cmd  string
	want bool
}{
	// Plain reading.
	{"ls", true},
	{`echo $"x"`, false}, // translated: the catalogue may make it $(…)
	{`$"ls" -l`, false},
	{"echo \\\r\nrm -rf x", false}, // bash runs rm after echo's "\r"
	{"ls\r", false},
	{"ls -la", true},
	{"cat main.go", true},
	{"head -n 20 main.go | tail -5", true},
	{"grep -rn 'func main' .", true},
	{"grep -rn /usr/bin .", true}, // the pattern is not a path
	{"rg -n --type go TODO", true},
	{"wc -l *.go && pwd", true},
	{"git status", true},
	{"git log --oneline -20", true},
	{"git diff HEAD~1 -- main.go", true},
	{"git show HEAD:main.go", true},
	{"git --no-pager log -p", true},
	{"git branch", true},
	{"git branch -a -v", true},
	{"git branch --contains abc123", true},
	{"git tag -l 'v1.*'", true},
	{"git config --get user.name", true},
	{"git stash list", true},
	{"git -C ../lib status", false}, // not a root: may be a repository the model planted
	{"git -C .. status", true},
	{"git -C /work/proj log", true},
	{"git --git-dir=../.git status", true},
	{"git --git-dir=/work/proj/.git --work-tree=/work/proj status", true},
	{"git --git-dir=sub status", false},
	{"git --git-dir sub status", false},
	{"git --work-tree=/ status", false},
	{"git -c core.fsmonitor=x status", false},
	{"find . -name '*.go' -type f", true},
	{"find . -path ./vendor -prune -o -print", true},
	{"fd -e go main", true},
	{"ls 2>/dev/null || echo none", true},
	{"cat main.go > /dev/null 2>&1", true},
	{"grep x < main.go", true},
	{"cat <<EOF\nhello $HOME\nEOF", true},
	{"echo $(git rev-parse HEAD)", true},
	{"echo \"$HOME\"", true},
	{"cd .. && ls", true},
	{"cd /work/proj && git status", true},
	{"cat /opt/shared/notes.txt", true},
	{"/usr/bin/ls", true},
	{"\\ls", true},
	{"( ls; pwd )", true},
	{"{ ls; }", true},
	{"time ls", true},
	{"! grep -q x main.go", true},
	{"ls |& head", true},
	{"sort -u names.txt", true},
	{"uniq names.txt", true},
	{"jq .name package.json", true},
	{"go version", true},
	{"go env GOPATH", true},
	{"date +%s", true},
	{"command -v go", true},
	{"[ -f main.go ] && echo yes", true},
	{"tail -f log.txt", true},

	// Writes, programs not on the list, and escapes.
	{"", false},
	{"rm -rf build", false},
	{"ls > out.txt", false},
	{"ls >> out.txt", false},
	{"ls &> out.txt", false},
	{"cat a 1>&2 >out", false},
	{"echo hi | tee out.txt", false},
	{"sed -n 1p main.go", false},
	{"awk '{print}' main.go", false},
	{"find . -delete", false},
	{"find . -name x -exec rm {} \\;", false},
	{"find / -name passwd", false},
	{"fd -x rm", false},
	{"rg --pre ./evil TODO", false},
	{"sort -o out.txt in.txt", false},
	{"sort --outp=out.txt in.txt", false},
	{"sort -uo out.txt in.txt", false},
	{"uniq in.txt out.txt", false},
	{"git commit -m x", false},
	{"git push", false},
	{"git checkout main", false},
	{"git branch new-feature", false},
	{"git branch -D old", false},
	{"git tag v1.0", false},
	{"git config user.name x", false},
	{"git -c core.pager=evil log", false},
	{"git diff --no-index /etc/passwd x", false},
	{"git diff --output=patch.txt", false},
	{"git stash", false},
	{"git -C /etc status", false},
	{"go test ./...", false},
	{"go env -w GOFLAGS=x", false},
	{"cat /etc/passwd", false},
	{"cat ~/.ssh/id_rsa", false},
	{"cat ../../../etc/passwd", false},
	{"grep -r x /etc", false},
	{"cat ~root/x", false},
	{"cd", false},
	{"cd /", false},
	{"cat $FILE", false},
	{"$CMD", false},
	{"echo $((i++))", false},
	{"echo ${x:=1}", false},
	{"echo ${x@P}", false},
	{"echo $(rm -rf x)", false},
	{"cat <(rm x)", false},
	{"cat <<EOF\n$(rm -rf x)\nEOF", false},
	{"FOO=1 ls", false},
	{"export A=1", false},
	{"for f in *; do cat $f; done", false},
	{"f() { ls; }", false},
	{"ls &", false},
	{"./ls", false},
	{"/tmp/ls", false},
	{"env", false}, // prints the environment, which can hold secrets
	{"printenv", false},
	{"printenv HOME", false},
	{"env rm -rf x", false},
	{"command rm x", false},
	{"printf -v x hi", false},
	{"date -s 2020-01-01", false},
	{"date -f /etc/shadow", false},
	{"xargs rm < list", false},
	{"sudo ls", false},
	{"bash -c ls", false},
	{"ls <> file", false},
	{"ls {fd}>/dev/null", false},
	{"if true; then ls; fi", false},
	{"ls 'unterminated", false},
	{"tree -o out.txt", false},
	{"file -C -m magic", false},
	{"yq -i .a=1 x.yaml", false},
	{"hostname newname", false},
	{"git remote add x y", false},
	{"git reflog expire --all", false},
	{"git blame --contents /etc/passwd x", false},
	{"grep -f/etc/shadow -r x .", false},
	{"grep -rf/etc/shadow .", false},
	{"grep -f../../../etc/x .", false},
	{"grep -n5 x main.go", true},
	{"head -n10 main.go", true},
	{"ls -la ./cmd", true},
}

func TestReadOnly(t *testing.T) {
	for _, tc := range readOnlyCases {
		t.Run(tc.cmd, func(t *testing.T) {
			got, why := ReadOnly(tc.cmd, readOnlyOpts)
			if got != tc.want {
				t.Fatalf("ReadOnly(%q) = %v (%s), want %v", tc.cmd, got, why, tc.want)
			}
			if !got && why == "" {
				t.Fatal("a refusal must say why")
			}
			if got && why != "" {
				t.Fatalf("read-only with a reason %q", why)
			}
		})
	}
}

func TestReadOnlyReasonsNameTheProblem(t *testing.T) {
	opts := Options{Roots: []string{"/w"}}
	tests := []struct{ cmd, want string }{
		{"sed -n 1p x", "sed is not on the read-only list"},
		{"ls > out", `redirects output to "out"`},
		{"cat /etc/passwd", `"/etc/passwd", outside the workspace`},
		{"git push", "git push is not on the read-only list"},
	}
	for _, tc := range tests {
		t.Run(tc.cmd, func(t *testing.T) {
			if _, why := ReadOnly(tc.cmd, opts); !strings.Contains(why, tc.want) {
				t.Fatalf("reason %q does not contain %q", why, tc.want)
			}
		})
	}
}

func TestReadOnlyWithoutRoots(t *testing.T) {
	// With no workspace known, nothing names a file safely except
	// programs that take no file names.
	if ok, _ := ReadOnly("cat x", Options{}); ok {
		t.Fatal("cat x is read-only with no workspace")
	}
	if ok, why := ReadOnly("pwd", Options{}); !ok {
		t.Fatalf("pwd: %s", why)
	}
}

func FuzzReadOnly(f *testing.F) {
	for _, s := range []string{"ls", "git log | head", "cat <<E\n$(x)\nE", "find . -exec rm {} +", "echo ${a[$((i++))]}", "cd .. && ls > /dev/null"} {
		f.Add(s)
	}
	opts := Options{Roots: []string{"/w"}, Home: "/home/u"}
	f.Fuzz(func(t *testing.T, cmd string) {
		ok, why := ReadOnly(cmd, opts)
		if ok == (why != "") {
			t.Fatalf("ReadOnly(%q) = %v with reason %q", cmd, ok, why)
		}
	})
}
