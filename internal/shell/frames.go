package shell

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/olly-agent/olly/internal/safety"
)

// frame is one message of the session's bash on its frame pipe (see
// driver.bash): which bash it is (V, once, first), a command began (B),
// ended (D), or its state was saved (S).
type frame struct {
	kind  byte
	token string
	rc    int
	bg    bool   // D: the command started a background job
	save  bool   // D: bash saves the state now (an S frame follows)
	pwd   string // D: the directory it ended in
	slot  int    // S: the state file written
	// V: BASH_VERSINFO[0] and [1]
	version [2]int
}

// maxFrameField bounds one field of a frame: a path is at most 4 KiB on
// Linux; anything longer is not from olly's driver.
const maxFrameField = 64 << 10

var errBadFrame = errors.New("shell: malformed frame from the session's bash")

// readFrame reads one frame. The bytes come from a process the model
// controls, so anything unexpected is an error, never a panic.
func readFrame(br *bufio.Reader) (frame, error) {
	kind, err := readField(br)
	if err != nil {
		return frame{}, err
	}
	// What declare -F printed before a B frame: the command's names that
	// are functions of the session, one per line (driver.bash).
	if i := strings.LastIndexByte(kind, '\n'); i >= 0 {
		if kind[i+1:] != "B" || !namesPrinted(kind[:i+1]) {
			return frame{}, fmt.Errorf("%w: kind %q", errBadFrame, kind)
		}
		kind = "B"
	}
	n := map[string]int{"V": 2, "B": 1, "D": 4, "S": 2}[kind]
	if n == 0 {
		return frame{}, fmt.Errorf("%w: kind %q", errBadFrame, kind)
	}
	f := make([]string, n)
	for i := range f {
		if f[i], err = readField(br); err != nil {
			if errors.Is(err, errBadFrame) {
				return frame{}, err
			}
			return frame{}, fmt.Errorf("%w: cut short: %v", errBadFrame, err)
		}
	}
	return parseFrame(kind[0], f)
}

// namesPrinted reports whether s is lines of command names as olly sends
// them (safety.PlainCommandName), each ended by a newline.
func namesPrinted(s string) bool {
	for line := range strings.SplitSeq(s[:len(s)-1], "\n") {
		if !safety.PlainCommandName(line) {
			return false
		}
	}
	return true
}

func parseFrame(kind byte, f []string) (frame, error) {
	fr := frame{kind: kind, token: f[0]}
	var err error
	switch kind {
	case 'V':
		var err2 error
		fr.version[0], err = strconv.Atoi(f[0])
		fr.version[1], err2 = strconv.Atoi(f[1])
		err = errors.Join(err, err2)
	case 'D':
		fr.rc, err = strconv.Atoi(f[1])
		fr.bg, fr.save, fr.pwd = strings.Contains(f[2], "b"), strings.Contains(f[2], "s"), f[3]
	case 'S':
		fr.slot, err = strconv.Atoi(f[1])
		if err == nil && fr.slot != 0 && fr.slot != 1 {
			err = errBadFrame
		}
	}
	if err != nil || fr.token == "" {
		return frame{}, fmt.Errorf("%w: %q %q", errBadFrame, kind, f)
	}
	return fr, nil
}

// readField reads up to the next NUL.
func readField(br *bufio.Reader) (string, error) {
	var b []byte
	for {
		chunk, err := br.ReadSlice(0)
		b = append(b, chunk...)
		if len(b) > maxFrameField {
			return "", fmt.Errorf("%w: field over %d bytes", errBadFrame, maxFrameField)
		}
		if err == nil {
			return string(b[:len(b)-1]), nil
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return "", err
		}
	}
}

// exitRecord is what the EXIT trap wrote when bash ended during a
// command: the command's token, exit status, final directory and the
// state slot it saved.
type exitRecord struct {
	token string
	rc    int
	pwd   string
	slot  int
}

// parseExitRecord parses STATE_DIR/exit; ok is false for anything but a
// complete record (bash killed while writing it leaves a partial one).
func parseExitRecord(b []byte) (exitRecord, bool) {
	if len(b) == 0 || b[len(b)-1] != 0 {
		return exitRecord{}, false
	}
	f := bytes.Split(b[:len(b)-1], []byte{0})
	if len(f) != 4 || len(f[0]) == 0 {
		return exitRecord{}, false
	}
	rc, err1 := strconv.Atoi(string(f[1]))
	slot, err2 := strconv.Atoi(string(f[3]))
	if err1 != nil || err2 != nil || (slot != 0 && slot != 1) {
		return exitRecord{}, false
	}
	return exitRecord{token: string(f[0]), rc: rc, pwd: string(f[2]), slot: slot}, true
}
