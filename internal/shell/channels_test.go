package shell

import (
	"bufio"
	"os"
	"strings"
	"testing"
)

// TestFunctionNamesBeforeB: what declare -F prints (the command's names
// that are functions) may come before a B frame, one name a line, and
// nowhere else; anything else there is a malformed frame.
func TestFunctionNamesBeforeB(t *testing.T) {
	br := bufio.NewReader(strings.NewReader("f\ndeactivate\nB\x00t.1\x00"))
	if f, err := readFrame(br); err != nil || f.kind != 'B' || f.token != "t.1" {
		t.Errorf("readFrame = %+v, %v", f, err)
	}
	for _, bad := range []string{"f\nD\x00t\x000\x00\x00/\x00", "f g\nB\x00t\x00", "\nB\x00t\x00", "f\n\nB\x00t\x00", "f\nX\x00"} {
		if f, err := readFrame(bufio.NewReader(strings.NewReader(bad))); err == nil {
			t.Errorf("readFrame(%q) = %+v, want an error", bad, f)
		}
	}
}

// TestChannelsNotInherited: the programs a command runs get stdin
// /dev/null, stdout and stderr on the output FIFO, and none of olly's
// channels (the wake pipe, the request file, the frame pipe): bash keeps
// those only at close-on-exec descriptors. A command that changed bash's
// own stdin with exec does not pass it on to the next command.
func TestChannelsNotInherited(t *testing.T) {
	requireProc(t)
	m, _ := newTestManager(t, nil)
	sh := m.Session("s")
	// ls runs as a program: its descriptors are what a command's
	// programs inherit (3 is its own listing of the folder). What the
	// test itself inherited at the same number (a leak from its own
	// parent) is not olly's.
	res := mustRun(t, sh, `ls -l /proc/self/fd/`, RunOptions{})
	n := 0
	for _, l := range strings.Split(res.Output, "\n") {
		f := strings.Fields(l)
		if len(f) < 3 || f[len(f)-2] != "->" {
			continue
		}
		fd, target := f[len(f)-3], f[len(f)-1]
		n++
		switch own, _ := os.Readlink("/proc/self/fd/" + fd); {
		case fd == "0" && target == "/dev/null", fd == "3":
		case (fd == "1" || fd == "2") && strings.HasPrefix(target, sh.proc.dir+"/o"):
		case fd != "1" && fd != "2" && own == target:
		default:
			t.Errorf("a program of the command has fd %s on %s", fd, target)
		}
	}
	if n < 4 {
		t.Errorf("the program's descriptors: %q", res.Output)
	}
	mustRun(t, sh, `exec </dev/zero`, RunOptions{})
	if res := mustRun(t, sh, `head -c 3 | od -An -c`, RunOptions{}); strings.TrimSpace(res.Output) != "" {
		t.Errorf("the command after an exec of bash's stdin read %q", res.Output)
	}
}

// TestBeginFrameKeptByTheReader: the B frame of the request sent last
// is kept by the frame reader (the command waiting for its D frame is not
// woken for it); any other B frame is passed on, and a second B frame for
// a running command, written into bash's saved copy of the frame pipe,
// still ends that bash.
func TestBeginFrameKeptByTheReader(t *testing.T) {
	p := &bashProc{}
	if p.takeBegin("t.1") {
		t.Error("a B frame kept before any request")
	}
	p.expectBegin("t.1")
	if p.takeBegin("t.2") || !p.takeBegin("t.1") || p.takeBegin("t.1") {
		t.Error("takeBegin keeps only the first B frame of the request sent")
	}
	if !p.begunWith("t.1") || p.begunWith("t.2") {
		t.Error("begunWith")
	}
	requireProc(t)
	m, _ := newTestManager(t, nil)
	sh := m.Session("s")
	mustRun(t, sh, "echo first", RunOptions{})
	pid := sh.proc.pid
	// During a command bash keeps stderr's /dev/null at 13 and the frame
	// pipe at 14 (the group's redirections, in order).
	res := mustRun(t, sh, `printf 'B\0%s\0' "$OLLY_SHELL_RUN" >&14; echo after`, RunOptions{})
	if !strings.Contains(res.Text(), "interfered") || sh.proc != nil && sh.proc.pid == pid {
		t.Errorf("a second B frame was accepted: %s", res.Text())
	}
	if res := mustRun(t, sh, "echo next", RunOptions{}); res.Output != "next" {
		t.Errorf("the next command: %s", res.Text())
	}
}
