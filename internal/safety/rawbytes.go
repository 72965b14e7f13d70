package safety

import (
	"errors"
	"fmt"
	"strings"
)

// Bytes the parser and bash read differently. mvdan.cc/sh reads a
// carriage return as a blank (and \r\n as a newline, \<CR><LF> as a line
// continuation), a form feed and a vertical tab as blanks, and drops a
// NUL; bash reads the first three as part of a word, and a NUL ends the
// text it is given. A command holding one would be checked as another
// command than bash runs (`echo \<CR><LF>eval …` read as one echo), so
// parse refuses it: it is then neither read-only nor stateless, may set
// noexec (the session's shell runs it in a subshell), and its verdict has
// a finding that says which byte to remove. The other control bytes (and
// DEL) bash uses as quoting marks inside its own expansion: they are
// refused too, as no command needs them written raw ($'\x01' does).

// rawByteError is parse's error for a command holding such a byte.
type rawByteError struct {
	line int    // 1-based line of the first one
	what string // what it is, and what to write instead
}

func (e *rawByteError) Error() string { return fmt.Sprintf("line %d: %s", e.line, e.what) }

// rawByte returns the error for text's first byte the parser and bash
// may read differently, or nil.
func rawByte(text string) error {
	i := 0 // a byte loop: every command is scanned, and UTF-8's other bytes are all >= 0x80
	for ; i < len(text); i++ {
		if c := text[i]; c < 0x20 && c != '\t' && c != '\n' || c == 0x7f {
			break
		}
	}
	if i == len(text) {
		return nil
	}
	var what string
	switch c := text[i]; c {
	case '\r':
		what = "the command contains a carriage return (\\r), which bash reads as part of a word; write it with plain newlines"
	case 0:
		what = "the command contains a NUL byte, which bash cannot take in a command; leave it out"
	case '\f', '\v':
		what = fmt.Sprintf("the command contains a %s, which bash reads as part of a word; use spaces or newlines",
			map[byte]string{'\f': "form feed (\\f)", '\v': "vertical tab (\\v)"}[c])
	default:
		what = fmt.Sprintf("the command contains the control character 0x%02x; write it as $'\\x%02x' or with printf", c, c)
	}
	return &rawByteError{line: 1 + strings.Count(text[:i], "\n"), what: what}
}

// bashReading is text with the bytes bash reads as part of a word and
// the parser as blanks (\r \f \v) made a byte the parser too reads as part
// of a word: a parse of it is close to what bash runs, for the findings of
// a command that parse refused (its verdict is at least High anyway).
func bashReading(text string) string {
	b := []byte(text)
	for i, c := range b {
		if c == '\r' || c == '\f' || c == '\v' {
			b[i] = 0x01
		}
	}
	return string(b)
}

// rawBytesFindings analyses, after parse refused text for err, what bash
// would run, as bashReading reads it (when it parses), so that a command
// bash runs after the refused byte still gets its own findings.
func (a *analyzer) rawBytesFindings(sc *scope, text, origin string, err error) (traits, bool) {
	var rb *rawByteError
	if !errors.As(err, &rb) {
		return 0, false
	}
	a.add(High, "unparseable", fmt.Sprintf("The command cannot be checked: %s", rb.what), origin)
	bt := bashReading(text)
	f, perr := parseText(bt)
	if perr != nil {
		return 0, true
	}
	sc.src = bt
	return a.walkFile(sc, f), true
}
