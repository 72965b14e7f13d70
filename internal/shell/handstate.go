package shell

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/olly-agent/olly/internal/sandbox"
)

// forcedNames are the variables olly exports before every command
// (forcedEnv, the TMPDIR entries, OLLY_SHELL_RUN): no state carries them.
func forcedNames() []string {
	names := []string{"TMPDIR", "TMP", "TEMP", "OLLY_SHELL_RUN"}
	for _, kv := range forcedEnv() {
		names = append(names, envName(kv))
	}
	return names
}

// tookState records that STATE_DIR/state now holds the newest state, saved
// by a bash under policy. A state a bash that is not read-only saved may
// reach every later bash as code (an unsandboxed one only if no sandbox
// saved it), so it is also kept as STATE_DIR/wstate: a new workspace-write
// bash takes its functions and aliases from there when the newest state
// is a read-only bash's.
func (s *Shell) tookState(policy sandbox.Policy) {
	s.hasState = true
	s.stateConfined = policy != sandbox.Unsandboxed
	s.stateRO = policy == sandbox.ReadOnly
	if s.stateRO {
		return
	}
	s.handBase = nil
	state, w := filepath.Join(s.dir, "state"), filepath.Join(s.dir, "wstate")
	tmp := w + ".tmp"
	_ = os.Remove(tmp)
	// state is only ever replaced by a rename: a link keeps this one.
	err := os.Link(state, tmp)
	if err == nil {
		err = os.Rename(tmp, w)
	}
	if err != nil {
		_ = os.Remove(tmp)
		err = copyState(state, w)
	}
	s.hasWState = err == nil
}

// handsData reports whether bash p, about to take the session's state,
// takes it as data only: the state is a read-only bash's and p is not
// read-only.
func (s *Shell) handsData(p sandbox.Policy) bool {
	return s.stateRO && p != sandbox.ReadOnly
}

// dataFailed is the note when dataState failed: the bash keeps its own
// state (or takes only the newest state a bash that was not read-only
// saved).
func dataFailed(err error) string {
	return "the variables read-only commands set were not carried over to this command (" + err.Error() + ")"
}

// dataState reads the state a read-only bash saved (src) and writes to
// dst the variables a bash that is not read-only may take from it, in
// olly's quoting; the note says what was left behind ("" if nothing).
// A name the workspace-write bash exports (its baseline: handBaseline)
// takes nothing from there, neither a value nor an unset: that bash keeps
// its own, so nothing a read-only command sets reaches a program's
// environment (every other variable crosses unexported). The file starts
// by clearing the variables of the bash that sources it (__olly_clearv)
// but those it keeps its own value of: the names olly never carries
// (driverDenyList) and each name of that state that does not cross. When part of the state could not be read, nothing is
// cleared: that bash keeps every variable the hand-over does not set.
// Either way each name set is unset first (writeUnsets).
func (s *Shell) dataState(src, dst string) (string, error) {
	b, err := readStateFile(src, maxDataState)
	if err != nil {
		return "", err
	}
	vars, rest, complete := parseDeclares(b)
	base := s.handBaseline()
	var sb strings.Builder
	var dropped, unexported, keep []string
	ownX := func(name string) bool { return base.exported[name] }
	kept := keptVars(vars, s.handPlaces(), ownX, func(v *shVar, deny, silent bool) {
		if !deny {
			keep = append(keep, v.name)
		}
		if !silent && base.noted(v) {
			dropped = append(dropped, v.name)
		}
	})
	if complete {
		gone := exportsUnset(base, vars)
		keep, dropped = append(keep, gone...), append(dropped, gone...)
		slices.Sort(dropped)
		sb.WriteString("__olly_clearv k")
		for _, n := range keep {
			sb.WriteString(" " + n) // identifiers (parseDeclares)
		}
		sb.WriteByte('\n')
	}
	writeUnsets(&sb, kept)
	for _, v := range kept {
		if strings.Contains(v.attrs, "x") {
			v.attrs = strings.ReplaceAll(v.attrs, "x", "")
			unexported = append(unexported, v.name)
		}
		v.source(&sb)
	}
	if err := writeStateFile(dst, func(w io.Writer) error {
		_, err := io.WriteString(w, sb.String())
		return err
	}); err != nil {
		return "", err
	}
	code := complete && codeChanged(b[rest:], base.code, base.haveCode)
	return handNote(code, dropped, unexported, !complete), nil
}

// writeUnsets writes the line that unsets each name of kept in the bash
// that sources it before the declares set them: a nameref itself first
// (unset -v would unset what it names), then the variable (unset -n does
// nothing to one that is no nameref). So no attribute that bash gave the
// name (integer, nameref, case, export) applies to the value that crosses,
// also when part of the state could not be read and nothing else is
// cleared (__olly_clearv does not run then). builtin: a function of that
// bash named unset does not run.
func writeUnsets(sb *strings.Builder, kept []shVar) {
	if len(kept) == 0 {
		return
	}
	var names strings.Builder
	for i := range kept {
		names.WriteString(" " + kept[i].name) // identifiers (parseDeclares)
	}
	sb.WriteString("builtin unset -n --" + names.String() + "; builtin unset -v --" + names.String() + "\n")
}

// exportsUnset are the names the baseline exports (and olly could carry)
// that a read-only bash's complete state vars no longer has: it unset
// them, and the workspace-write bash keeps them.
func exportsUnset(base *handBase, vars []shVar) []string {
	has := make(map[string]bool, len(vars))
	for i := range vars {
		has[vars[i].name] = true
	}
	var out []string
	for name, x := range base.exported {
		if deny, _ := handDeny(name); x && !deny && !has[name] && isIdentifier(name) {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// keptVars returns the variables of vars that cross (keepVar, and not
// one whose name own, if given, reports the taking bash keeps), each name
// once, at its last declaration (bash's printer never repeats one), with
// the attributes they keep (carriedAttrs); drop gets each other.
func keptVars(vars []shVar, places []string, own func(string) bool, drop func(v *shVar, deny, silent bool)) []shVar {
	last := make(map[string]int, len(vars))
	for i := range vars {
		last[vars[i].name] = i
	}
	var kept []shVar
	for i := range vars {
		v := &vars[i]
		if last[v.name] != i {
			continue
		}
		if keep, deny, silent := keepVar(v, places); keep && (own == nil || !own(v.name)) {
			c := *v
			c.attrs = carriedAttrs(c.attrs)
			kept = append(kept, c)
		} else if drop != nil {
			drop(v, deny, silent)
		}
	}
	return kept
}

// handBaseline is what the bash taking a read-only state holds already,
// to tell what the hand-over leaves behind: the variables (each as
// canonical writes it, and whether it exports each) and the functions and
// aliases of the newest state a bash that was not read-only saved, or,
// without one, the session's base environment and no functions (haveCode
// false).
// It is kept until wstate changes (tookState).
func (s *Shell) handBaseline() *handBase {
	if s.handBase != nil {
		return s.handBase
	}
	b := &handBase{vars: make(map[string]string), exported: make(map[string]bool), filled: make(map[string]bool)}
	s.handBase = b
	if s.hasWState {
		if st, err := readStateFile(filepath.Join(s.dir, "wstate"), maxDataState); err == nil {
			vs, rest, _ := parseDeclares(st)
			for i := range vs {
				b.vars[vs[i].name] = canonical(&vs[i])
				b.exported[vs[i].name] = strings.Contains(vs[i].attrs, "x")
			}
			b.code, b.haveCode = st[rest:], true
			return b
		}
	}
	// What every bash sets by itself, and the environment it starts with.
	for name, val := range map[string]string{"IFS": " \t\n", "PS4": "+ ", "OPTERR": "1"} {
		b.vars[name] = canonical(&shVar{name: name, set: true, value: val})
	}
	for _, name := range bashFills {
		b.filled[name] = true
	}
	for _, kv := range s.m.baseEnv {
		name, val, _ := strings.Cut(kv, "=")
		b.vars[name] = canonical(&shVar{name: name, attrs: "x", set: true, value: val})
		b.exported[name] = true
		delete(b.filled, name)
	}
	return b
}

// bashFills are the variables bash sets by itself, unexported, when its
// environment lacks them: HOME and SHELL from the password database, PATH
// and TERM from defaults built into it. Without a workspace-write state
// the baseline cannot know those values, so an unexported one a read-only
// state holds is taken for the one the workspace-write bash set the same
// way (noted: false).
var bashFills = []string{"HOME", "SHELL", "PATH", "TERM"}

// noted reports whether leaving v behind is worth a note: it differs from
// what the taking bash holds already.
func (b *handBase) noted(v *shVar) bool {
	if b.filled[v.name] && !strings.Contains(v.attrs, "x") {
		return false
	}
	return b.vars[v.name] != canonical(v)
}

// handBase is what handBaseline found.
type handBase struct {
	vars     map[string]string
	exported map[string]bool // true for each name of vars with attribute x
	filled   map[string]bool // names of bashFills the environment lacks (no wstate)
	code     []byte
	haveCode bool
}

func canonical(v *shVar) string {
	var sb strings.Builder
	v.source(&sb)
	return sb.String()
}

// codeChanged reports whether the functions and aliases of a read-only
// bash's state (code: what follows its variables) differ from the
// baseline's, or, without one, whether it has any but olly's own.
func codeChanged(code, base []byte, haveBase bool) bool {
	if haveBase {
		return !bytes.Equal(code, base)
	}
	for line := range strings.Lines(string(code)) {
		if strings.HasPrefix(line, "alias ") {
			return true
		}
		if f, ok := strings.CutPrefix(line, "declare -f"); ok {
			if w := strings.Fields(f); len(w) > 0 && !strings.HasPrefix(w[len(w)-1], "__olly_") {
				return true
			}
		}
	}
	return false
}
