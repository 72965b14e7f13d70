package shell

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// FuzzParseDeclares: the parser never panics, and every variable olly
// would carry is written back in a form that reads back as exactly that
// variable (readOllyDecl follows bash's rules for olly's quoting). Seeds
// in testdata/fuzz/FuzzParseDeclares: real saved states and attacks.
func FuzzParseDeclares(f *testing.F) {
	f.Add([]byte("declare -- x=\"1\"\ndeclare -a a=([0]=\"1\" [3]=$'\\n')\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		vars, rest, _ := parseDeclares(b)
		if rest < 0 || rest > len(b) {
			t.Fatalf("rest %d of %d", rest, len(b))
		}
		for i := range vars {
			v := &vars[i]
			if !isIdentifier(v.name) {
				t.Fatalf("parsed a variable named %q", v.name)
			}
			if keep, _, _ := keepVar(v, nil); !keep {
				continue
			}
			text := canonical(v)
			got, ok := readOllyDecl(text)
			if !ok || !reflect.DeepEqual(got, *v) {
				t.Fatalf("written as %q, read back as %+v (ok %v), want %+v", text, got, ok, *v)
			}
		}
	})
}

// readOllyDecl reads one statement as source writes it: "builtin declare -ATTRS
// name", then ='…', or for an array "; name=([k]='…' …)", in single quotes, where '\” is a
// quote, and nothing else.
func readOllyDecl(s string) (shVar, bool) {
	var v shVar
	s, ok := strings.CutPrefix(s, "builtin declare -")
	s, ok2 := strings.CutSuffix(s, "\n")
	if !ok || !ok2 {
		return v, false
	}
	attrs, s, _ := strings.Cut(s, " ")
	if attrs != "-" {
		v.attrs = attrs
	}
	if v.array() {
		v.name, s, v.set = strings.Cut(s, "; ")
		if !v.set {
			return v, true
		}
		s, ok = strings.CutPrefix(s, v.name+"=(")
	} else {
		v.name, s, v.set = strings.Cut(s, "=")
		if !v.set {
			return v, s == ""
		}
		v.value, s, ok = readSingle(s)
		return v, ok && s == ""
	}
	for ok && !strings.HasPrefix(s, ")") {
		var e shElem
		s = strings.TrimPrefix(s, " ")
		if s, ok = strings.CutPrefix(s, "["); !ok {
			break
		}
		if strings.Contains(v.attrs, "A") {
			e.key, s, ok = readSingle(s)
		} else {
			e.key, s, ok = strings.Cut(s, "]")
			s = "]" + s
		}
		if !ok {
			break
		}
		if s, ok = strings.CutPrefix(s, "]="); !ok {
			break
		}
		e.value, s, ok = readSingle(s)
		v.elems = append(v.elems, e)
	}
	return v, ok && s == ")"
}

func readSingle(s string) (val, rest string, ok bool) {
	var sb strings.Builder
	for strings.HasPrefix(s, "'") {
		end := strings.IndexByte(s[1:], '\'')
		if end < 0 {
			return "", s, false
		}
		sb.WriteString(s[1 : 1+end])
		s = s[2+end:]
		if !strings.HasPrefix(s, `\''`) {
			return sb.String(), s, true
		}
		sb.WriteByte('\'')
		s = s[2:]
	}
	return "", s, false
}

// TestRegeneratedStateRunsNothing: for a few hundred inputs (the fuzz
// corpus and mutations of its larger seeds), the file olly writes from
// what it parsed, sourced by a real bash (a subshell each, in a folder of
// its own), defines exactly the variables olly kept, with their values,
// and runs nothing (no file appears).
func TestRegeneratedStateRunsNothing(t *testing.T) {
	seeds := fuzzCorpus(t, "FuzzParseDeclares")
	var big [][]byte
	for _, in := range seeds {
		if vars, _, _ := parseDeclares(in); len(keptVars(vars, nil, nil, nil)) >= 3 {
			big = append(big, in)
		}
	}
	if len(seeds) < 5 || len(big) < 2 {
		t.Fatalf("%d seeds (%d with 3 variables kept) in testdata/fuzz/FuzzParseDeclares", len(seeds), len(big))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	inputs := seeds
	for len(inputs) < 250 {
		inputs = append(inputs, mutate(rng, big[rng.IntN(len(big))]))
	}
	root := t.TempDir()
	var script strings.Builder
	kept := map[int][]shVar{}
	dirs := 0
	for i, in := range inputs {
		vars, _, _ := parseDeclares(in)
		k := keptVars(vars, nil, nil, nil)
		if len(k) == 0 {
			continue
		}
		kept[i] = k
		var sb strings.Builder
		var names []string
		for _, v := range kept[i] {
			v.source(&sb)
			names = append(names, v.name)
		}
		dir := filepath.Join(root, strconv.Itoa(i))
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "data"), []byte(sb.String()), 0o600); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&script, "(echo '@@input %d'; compgen -v; echo ==; source ./%d/data >/dev/null 2>&1; compgen -v; echo ==; declare -p %s)\n",
			i, i, strings.Join(names, " "))
		dirs++
	}
	if dirs < 200 {
		t.Fatalf("only %d of %d inputs had a variable to keep", dirs, len(inputs))
	}
	out := bashPrint(t, root, script.String())
	for _, part := range strings.Split("\n"+out, "\n@@input ")[1:] {
		f := strings.SplitN(part, "==\n", 3)
		num, before, _ := strings.Cut(f[0], "\n")
		i, _ := strconv.Atoi(num)
		checkSourced(t, i, inputs[i], kept[i], before, f[1], f[2])
		delete(kept, i)
		if ents, _ := os.ReadDir(filepath.Join(root, num)); len(ents) != 1 {
			t.Errorf("input %d: sourcing made files: %v", i, ents)
		}
	}
	if ents, _ := os.ReadDir(root); len(ents) != dirs {
		t.Errorf("sourcing made files: %d entries beside the %d folders", len(ents)-dirs, dirs)
	}
	for i := range kept {
		if len(kept[i]) > 0 {
			t.Errorf("input %d was not checked", i)
		}
	}
}

// checkSourced compares what bash has after sourcing olly's file for in
// (variables before and after, declare -p of the kept names) with kept.
func checkSourced(t *testing.T, i int, in []byte, kept []shVar, before, after, printed string) {
	t.Helper()
	var want []string
	var names []string
	for _, v := range kept {
		slices.SortFunc(v.elems, func(a, b shElem) int { return strings.Compare(a.key, b.key) })
		want = append(want, canonical(&v))
		names = append(names, v.name)
	}
	slices.Sort(want)
	for _, n := range strings.Fields(after) {
		if _, silent := handDeny(n); silent {
			continue // bash's own, set as it runs (PIPESTATUS)
		}
		if !slices.Contains(strings.Fields(before), n) && !slices.Contains(names, n) {
			t.Errorf("input %d: sourcing defined %s, which olly did not keep", i, n)
		}
	}
	if got := sortedLines(printed); !slices.Equal(got, want) {
		t.Errorf("input %d %q:\nbash has\n%s\nwant\n%s", i, in, strings.Join(got, ""), strings.Join(want, ""))
	}
}

// fuzzCorpus reads the seed files of a fuzz target.
func fuzzCorpus(t testing.TB, target string) [][]byte {
	dir := filepath.Join("testdata", "fuzz", target)
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		_, lit, _ := strings.Cut(string(b), "[]byte(")
		s, err := strconv.Unquote(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(lit), ")")))
		if err != nil {
			t.Fatalf("%s: %v", e.Name(), err)
		}
		out = append(out, []byte(s))
	}
	return out
}

// mutate changes in at a few places, with bytes that matter to quoting.
func mutate(rng *rand.Rand, in []byte) []byte {
	out := slices.Clone(in)
	const special = "$`'\"\\()[]= \n;x0-"
	for range 1 + rng.IntN(2) {
		if len(out) == 0 {
			out = append(out, special[rng.IntN(len(special))])
			continue
		}
		// Mostly past the middle: a statement the parser refuses ends
		// the variables there, and the earlier ones are still checked.
		at := len(out)/3 + rng.IntN(len(out)-len(out)/3)
		switch rng.IntN(3) {
		case 0:
			out = slices.Insert(out, at, special[rng.IntN(len(special))])
		case 1:
			out = slices.Delete(out, at, at+1)
		default:
			out[at] = special[rng.IntN(len(special))]
		}
	}
	return out
}

// BenchmarkHandOverData is olly's side of a hand-over from a read-only
// bash: parse a real saved state (real_state in the fuzz corpus: 67
// variables, a function, an alias), keep what crosses and write it again.
func BenchmarkHandOverData(b *testing.B) {
	var in []byte
	for _, s := range fuzzCorpus(b, "FuzzParseDeclares") {
		if len(s) > len(in) {
			in = s
		}
	}
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		vars, _, _ := parseDeclares(in)
		var sb strings.Builder
		for _, v := range keptVars(vars, []string{"/tmp/olly-tmp-x", "olly-tmp-x"}, nil, nil) {
			v.source(&sb)
		}
	}
}
