package safety

import (
	"strings"
	"testing"
)

// TestRawBytesFailClosed: a command with a byte bash reads otherwise than
// the parser (a carriage return, a form feed, a vertical tab, a NUL, any
// other control byte) is neither read-only nor stateless, may set noexec,
// and its verdict is at least High, with a reason that says what to write
// instead; what bash runs after the byte still gets its own findings.
func TestRawBytesFailClosed(t *testing.T) {
	for _, tc := range []struct{ cmd, why string }{
		{"echo \\\r\neval 'shopt -s extdebug; trap \"false\" DEBUG'", "carriage return (\\r), which bash reads as part of a word; write it with plain newlines"},
		{"echo \\\r\nprintf -v TMOUT 1", "carriage return"},
		{"echo \\\r\nset -n", "carriage return"},
		{"ls\r", "carriage return"},
		{"ls\r\nls\r\n", "carriage return"},
		{"ls\f-l", "form feed"},
		{"ls\v-l", "vertical tab"},
		{"echo a\x00b", "NUL byte"},
		{"echo a\x01b", "control character 0x01; write it as $'\\x01'"},
		{"echo a\x1b[0m", "control character 0x1b"},
		{"echo a\x7f", "control character 0x7f"},
		{"echo ok\necho 'a\rb'", "line 2: the command contains a carriage return"},
	} {
		c := Check(tc.cmd, testOpts())
		if c.ReadOnly || c.Stateless || c.Names != nil || !c.Noexec {
			t.Errorf("%q: read-only %v, stateless %v %q, noexec %v", tc.cmd, c.ReadOnly, c.Stateless, c.Names, c.Noexec)
		}
		if !strings.Contains(c.Why, strings.TrimPrefix(tc.why, "line 2: ")) {
			t.Errorf("%q: read-only's reason %q, want %q in it", tc.cmd, c.Why, tc.why)
		}
		if c.Verdict.Severity < High || !strings.Contains(c.Verdict.Findings[len(c.Verdict.Findings)-1].Reason+c.Verdict.Findings[0].Reason, "contains") {
			t.Errorf("%q: verdict %+v", tc.cmd, c.Verdict)
		}
		if err := rawByte(tc.cmd); err == nil || !strings.Contains(err.Error(), tc.why) {
			t.Errorf("%q: parse error %v, want %q in it", tc.cmd, err, tc.why)
		}
	}
	// What bash runs after the carriage return is analysed as bash reads it.
	for cmd, want := range map[string]Severity{"echo \\\r\nrm -rf /": Critical, "echo \\\r\nrm -rf x": High} {
		if v := Analyze(cmd, testOpts()); v.Severity != want {
			t.Errorf("%q: %v, want %v: %+v", cmd, v.Severity, want, v.Findings)
		}
	}
	// Tabs, newlines and other text are read alike.
	for _, cmd := range []string{"ls\t-l\n", "echo 'é ü'\n", "printf '\\r\\n'"} {
		if err := rawByte(cmd); err != nil {
			t.Errorf("%q: %v", cmd, err)
		}
	}
}
