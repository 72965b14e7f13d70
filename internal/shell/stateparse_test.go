package shell

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The reviewer's attacks on the stateless decision (safety's parse), in
// the real driver: each left a trap or a variable in olly's own loop, or
// ran session code in it, after a command olly skipped the reset for.

// trapSurvives runs attack, then two stateless commands, and reports
// whether the DEBUG trap that writes mark still fires after attack ended.
func trapSurvives(t *testing.T, sh *Shell, mark, attack string) bool {
	t.Helper()
	mustRun(t, sh, attack, RunOptions{})
	os.Remove(mark) // the trap may fire in olly's code before the reset
	mustRun(t, sh, "echo one", RunOptions{})
	mustRun(t, sh, "ls /", RunOptions{})
	_, err := os.Stat(mark)
	return err == nil
}

// TestCarriageReturnLeavesNoTrap: the parser read `echo \<CR><LF>eval …`
// as one echo (a line continuation), bash as echo "\r" and an eval: the
// eval's DEBUG trap (extdebug: inherited by olly's functions) outlived the
// command, and so did printf -v's TMOUT; set -n behind it stopped bash.
// Now the parse refuses a command with a carriage return: it is stateful,
// and may set noexec, so it runs in a subshell, not in olly's loop.
func TestCarriageReturnLeavesNoTrap(t *testing.T) {
	m, ws := newTestManager(t, nil)
	sh := m.Session("s")
	mark := filepath.Join(ws, "trapped")
	attack := "echo \\\r\neval 'shopt -s extdebug; trap \": >>" + mark + "\" DEBUG'"
	if trapSurvives(t, sh, mark, attack) {
		t.Error("the DEBUG trap set after a carriage return outlived its command")
	}
	p := sh.proc
	mustRun(t, sh, "echo \\\r\nprintf -v TMOUT 1", RunOptions{})
	if res := mustRun(t, sh, `echo "tmout=${TMOUT-}"`, RunOptions{}); res.Output != "tmout=" {
		t.Errorf("TMOUT set behind a carriage return reached olly's loop: %s", res.Text())
	}
	mustRun(t, sh, "echo \\\r\nset -n", RunOptions{})
	if res := mustRun(t, sh, "echo after", RunOptions{}); res.Output != "after" || sh.proc != p {
		t.Errorf("after set -n behind a carriage return: %s (bash replaced: %v)", res.Text(), sh.proc != p)
	}
}

// TestTranslatedStringIsNotStateless: bash translates $"…" through the
// catalogue TEXTDOMAIN and TEXTDOMAINDIR name, which a saved command may
// set: $"ls" became eval, and its trap outlived the "stateless" command.
func TestTranslatedStringIsNotStateless(t *testing.T) {
	m, ws := newTestManager(t, nil)
	sh := m.Session("s")
	dir := filepath.Join(ws, "loc", "C.UTF-8", "LC_MESSAGES")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := writeCatalogue(filepath.Join(dir, "e.mo"), map[string]string{"ls": "eval"}); err != nil {
		t.Fatal(err)
	}
	mustRun(t, sh, `export LC_ALL=C.UTF-8 TEXTDOMAIN=e TEXTDOMAINDIR="$PWD/loc"`, RunOptions{})
	if res := mustRun(t, sh, `printf '%s\n' $"ls"`, RunOptions{}); res.Output != "eval" {
		t.Skipf("bash does not translate here (the C.UTF-8 locale is missing?): %s", res.Text())
	}
	mark := filepath.Join(ws, "trapped")
	if trapSurvives(t, sh, mark, `$"ls" 'trap ": >>`+mark+`" DEBUG'`) {
		t.Error(`the DEBUG trap set by a translated $"ls" outlived its command`)
	}
}

// writeCatalogue writes a GNU message catalogue (.mo) mapping each key
// to its value.
func writeCatalogue(path string, msgs map[string]string) error {
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range msgs {
			if !yield(k) {
				return
			}
		}
	})
	n := uint32(len(keys))
	off := 28 + 16*n // header, then the two tables
	var tab, strs []byte
	for _, s := range slices.Concat(keys, values(keys, msgs)) {
		tab = binary.LittleEndian.AppendUint32(tab, uint32(len(s)))
		tab = binary.LittleEndian.AppendUint32(tab, off)
		strs = append(append(strs, s...), 0)
		off += uint32(len(s)) + 1
	}
	b := binary.LittleEndian.AppendUint32(nil, 0x950412de)
	for _, v := range []uint32{0, n, 28, 28 + 8*n, 0, 0} {
		b = binary.LittleEndian.AppendUint32(b, v)
	}
	return os.WriteFile(path, slices.Concat(b, tab, strs), 0o644)
}

func values(keys []string, m map[string]string) []string {
	var out []string
	for _, k := range keys {
		out = append(out, m[k])
	}
	return out
}

// TestNamerefUnderscoreDoesNotOutliveItsCommand: bash assigns _ after
// every simple command, so a session's nameref _ to an array element
// evaluated its subscript (code) after each of olly's own commands, for
// every later command too. The reset after the command that made it
// unsets it.
func TestNamerefUnderscoreDoesNotOutliveItsCommand(t *testing.T) {
	m, _ := newTestManager(t, nil)
	sh := m.Session("s")
	mustRun(t, sh, "N=0 a=(1); declare -n _='a[N++]'", RunOptions{})
	count := func() int {
		res := mustRun(t, sh, `printf '%s\n' "$N"`, RunOptions{})
		n, err := strconv.Atoi(strings.TrimSpace(res.Output))
		if err != nil {
			t.Fatalf("N: %s", res.Text())
		}
		return n
	}
	before := count()
	mustRun(t, sh, "echo one", RunOptions{})
	mustRun(t, sh, "true", RunOptions{})
	if after := count(); after != before {
		t.Errorf("the nameref _ was assigned %d times after its command", after-before)
	}
}
