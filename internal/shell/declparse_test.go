package shell

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// bashPrint runs script in a clean bash and returns what it printed.
func bashPrint(t testing.TB, dir, script string) string {
	t.Helper()
	cmd := exec.Command("bash", "--noprofile", "--norc", "-c", script)
	cmd.Dir = dir
	cmd.Env = []string{"LC_ALL=C", "PATH=/usr/bin:/bin"}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("bash: %v\n%s", err, out)
	}
	return string(out)
}

// plantVars are variables with the values bash's printer must quote.
const plantVars = `a=$'a\nb'; b='x y"$` + "`" + `\'; c=$'\x01\t\e\x7f \xc3\xa9 q'"'"'z'; d=; e='$(touch pwned)'
declare -a arr=(1 "two words" $'l\nm' '[0]=x' '$(touch pwned)'); arr[17]=z
declare -A m=([k]=v ["a b"]=c [$'q\n']=$'\x02' ["]"]=1 ['x"y']=2 ['$(touch pwned)']='` + "`touch pwned`" + `' [w.x-y:z/@%]=3)
declare -ix n=-5; declare -l lw=Hi; declare -u up=hi; declare -r ro=1; declare -x unsetx; declare u
declare -a emptya; declare -A emptym; declare -ax ea=(1); declare -ai ia=([3]=4 [9]=-2); declare -Ai im=([k]=7)
export EXP='v with spaces'`

var plantNames = []string{"a", "b", "c", "d", "e", "arr", "m", "n", "lw", "up", "ro", "unsetx", "u", "emptya", "emptym", "ea", "ia", "im", "EXP"}

// TestParseDeclaresReadsBash: what bash prints with declare -p is read
// back value for value, and the file olly writes from it, sourced by a
// new bash, gives the very same declare -p output, running nothing.
func TestParseDeclaresReadsBash(t *testing.T) {
	dir := t.TempDir()
	names := strings.Join(plantNames, " ")
	printed := bashPrint(t, dir, plantVars+"\ndeclare -p "+names)
	vars, rest, complete := parseDeclares([]byte(printed))
	if !complete || rest != len(printed) || len(vars) != len(plantNames) {
		t.Fatalf("parsed %d of %d variables (complete %v, rest %d of %d):\n%s", len(vars), len(plantNames), complete, rest, len(printed), printed)
	}
	byName := map[string]*shVar{}
	for i := range vars {
		byName[vars[i].name] = &vars[i]
	}
	if v := byName["b"]; v.value != `x y"$`+"`"+`\` {
		t.Errorf("b = %q", v.value)
	}
	if v := byName["c"]; v.value != "\x01\t\x1b\x7f \xc3\xa9 q'z" {
		t.Errorf("c = %q", v.value)
	}
	if v := byName["arr"]; len(v.elems) != 6 || v.elems[2].value != "l\nm" || v.elems[5].key != "17" {
		t.Errorf("arr = %+v", v.elems)
	}
	var sb strings.Builder
	for _, v := range vars {
		if keep, _, _ := keepVar(&v, nil); !keep {
			t.Errorf("%s (%s) was not kept", v.name, v.attrs)
			continue
		}
		v.source(&sb)
	}
	if err := os.WriteFile(filepath.Join(dir, "data"), []byte(sb.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	again := bashPrint(t, dir, "source ./data; declare -p "+names)
	if got, want := sortedLines(again), sortedLines(printed); !slices.Equal(got, want) {
		t.Errorf("sourced again, bash prints\n%s\nwant\n%s", again, printed)
	}
	if _, err := os.Stat(filepath.Join(dir, "pwned")); err == nil {
		t.Error("sourcing the regenerated state ran a command")
	}
}

// sortedLines sorts the entries of associative arrays and the lines, as
// bash prints associative arrays in hash order.
func sortedLines(s string) []string {
	vars, _, _ := parseDeclares([]byte(s))
	var out []string
	for _, v := range vars {
		slices.SortFunc(v.elems, func(a, b shElem) int { return strings.Compare(a.key, b.key) })
		out = append(out, canonical(&v))
	}
	slices.Sort(out)
	return out
}

func TestParseDeclaresRefuses(t *testing.T) {
	for name, in := range map[string]string{
		"expansion in double quotes": "declare -- x=\"$(touch p)\"\n",
		"backquote":                  "declare -- x=\"`touch p`\"\n",
		"bare value":                 "declare -- x=abc\n",
		"second command":             "declare -- x=\"a\"; touch p\n",
		"bad name":                   "declare -- x-y=\"a\"\n",
		"unterminated":               "declare -- x=\"a\n",
		"bare key with expansion":    "declare -A m=([$(touch p)]=\"1\")\n",
		"indexed key not a number":   "declare -a m=([x]=\"1\")\n",
		"NUL in ansi":                "declare -- x=$'a\\0b'\n",
		"unicode escape":             "declare -- x=$'\\u00e9'\n",
		"no flags":                   "declare - x=\"1\"\n",
		"unquoted element":           "declare -a a=([0]=x)\n",
	} {
		t.Run(name, func(t *testing.T) {
			vars, _, complete := parseDeclares([]byte("declare -- ok=\"1\"\n" + in + "declare -- after=\"2\"\n"))
			if complete || len(vars) != 1 || vars[0].name != "ok" {
				t.Errorf("got %+v, complete %v; want only ok and incomplete", vars, complete)
			}
		})
	}
	// The variable section ends at the functions.
	in := "declare -- x=\"1\"\nf () \n{ \n    declare -- y=\"2\"\n}\ndeclare -f f\nalias l='ls'\n"
	vars, rest, complete := parseDeclares([]byte(in))
	if !complete || len(vars) != 1 || in[rest:rest+4] != "f ()" {
		t.Errorf("got %+v, rest %d, complete %v", vars, rest, complete)
	}
}

func TestKeepVar(t *testing.T) {
	places := []string{"/tmp/olly-tmp-s-123", "olly-tmp-s-123"}
	for _, c := range []struct {
		v    shVar
		keep bool
	}{
		{shVar{name: "A", attrs: "x", set: true, value: "1"}, true},
		{shVar{name: "LD_PRELOAD", attrs: "x", set: true, value: "/x.so"}, false},
		{shVar{name: "BASH_ENV", attrs: "x", set: true, value: "/x"}, false},
		{shVar{name: "PATH", attrs: "x", set: true, value: "/x:/usr/bin"}, false},
		{shVar{name: "PKG_CONFIG_PATH", attrs: "x", set: true, value: "/x"}, false},
		{shVar{name: "GIT_SSH_COMMAND", attrs: "x", set: true, value: "touch p"}, false},
		{shVar{name: "SOME_TOOL_COMMAND", attrs: "x", set: true, value: "touch p"}, false},
		{shVar{name: "npm_config_script_shell", attrs: "x", set: true, value: "/x"}, false},
		{shVar{name: "PATHS", attrs: "x", set: true, value: "a b"}, true},
		{shVar{name: "__olly_req", attrs: "a", set: true}, false},
		// Attributes but a, A and x are dropped (carriedAttrs): the values
		// cross as plain strings.
		{shVar{name: "ref", attrs: "n", set: true, value: "PATH"}, true},
		{shVar{name: "n", attrs: "i", set: true, value: "a[$(touch p)]"}, true},
		{shVar{name: "n", attrs: "i", set: true, value: "012"}, true},
		{shVar{name: "OPTIND", attrs: "i", set: true, value: "1"}, false},
		{shVar{name: "TAR_OPTIONS", attrs: "x", set: true, value: "--checkpoint=1"}, false},
		{shVar{name: "LC_ALL", attrs: "x", set: true, value: "zh_TW.BIG5"}, false},
		{shVar{name: "LANG", attrs: "x", set: true, value: "en_US.UTF-8"}, true},
		{shVar{name: "n", attrs: "i", set: true, value: "-12"}, true},
		{shVar{name: "CONF", attrs: "x", set: true, value: "../../olly-tmp-s-123/x"}, false},
		{shVar{name: "CONF", attrs: "", set: true, value: "/tmp/olly-tmp-s-123/x"}, true}, // not exported
		{shVar{name: "CONF", attrs: "x", set: true, value: "/proc/1/cwd/x"}, false},
		{shVar{name: "a", attrs: "a", set: true, elems: []shElem{{"1", "x"}, {"1", "y"}}}, false},
		{shVar{name: "l", attrs: "l", set: true, value: "Hi"}, true},
	} {
		if keep, _, _ := keepVar(&c.v, places); keep != c.keep {
			t.Errorf("keepVar(%+v) = %v", c.v, keep)
		}
	}
	for _, n := range []string{"RANDOM", "PWD", "TMPDIR", "__olly_d"} {
		if deny, silent := handDeny(n); !deny || !silent {
			t.Errorf("%s: bash's own changing variables (and olly's) must be dropped silently", n)
		}
	}
}
