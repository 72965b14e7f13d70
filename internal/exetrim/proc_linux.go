//go:build linux && !android && (amd64 || arm64)

package exetrim

import "unsafe"

// traced reports whether /proc/self/status names a tracer visible in
// olly's PID namespace: a debugger's breakpoints are private copies of
// text pages, which MADV_DONTNEED would discard. It fails closed: a status
// that cannot be read, or has no TracerPid line, counts as traced.
func traced() bool {
	var buf [4096]byte
	return tracerIn(buf[:readFile("/proc/self/status", buf[:])])
}

// tracerIn reports whether a /proc/<pid>/status listing names a tracer,
// or lacks the TracerPid line that would say there is none.
func tracerIn(status []byte) bool {
	v, ok := field(status, "\nTracerPid:")
	return !ok || string(v) != "0"
}

// field returns the value after key in a "Key:\tvalue\n" listing.
func field(s []byte, key string) ([]byte, bool) {
	for i := 0; i+len(key) <= len(s); i++ {
		if string(s[i:i+len(key)]) != key {
			continue
		}
		v := s[i+len(key):]
		for len(v) > 0 && (v[0] == ' ' || v[0] == '\t') {
			v = v[1:]
		}
		end := 0
		for end < len(v) && v[end] != '\n' {
			end++
		}
		return v[:end], true
	}
	return nil, false
}

// sandboxHelper reports whether this process is `olly __sandbox …`.
func sandboxHelper() bool {
	var buf [4096]byte
	b := buf[:readFile("/proc/self/cmdline", buf[:])]
	for i, c := range b { // skip argv[0]
		if c == 0 {
			arg := b[i+1:]
			return len(arg) > len(HelperArg) && string(arg[:len(HelperArg)]) == HelperArg && arg[len(HelperArg)] == 0
		}
	}
	return false
}

// envSet reports whether the process started with the variable entry
// (such as "OLLY_EXETRIM=0") in its environment. os is not initialised
// yet, so it reads /proc/self/environ.
func envSet(entry string) bool {
	fd, e := openRead("/proc/self/environ")
	if e != 0 {
		return false
	}
	defer closeFD(fd)
	b := make([]byte, 0, 16<<10)
	for len(b) < 4<<20 { // ARG_MAX-sized environments are cut short
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n := readFD(fd, b[len(b):cap(b)])
		if n == 0 {
			break
		}
		b = b[:len(b)+n]
	}
	for start := 0; start < len(b); {
		end := start
		for end < len(b) && b[end] != 0 {
			end++
		}
		if string(b[start:end]) == entry {
			return true
		}
		start = end + 1
	}
	return false
}

func readFile(path string, buf []byte) int {
	fd, e := openRead(path)
	if e != 0 {
		return 0
	}
	defer closeFD(fd)
	n := 0
	for n < len(buf) {
		m := readFD(fd, buf[n:])
		if m == 0 {
			break
		}
		n += m
	}
	return n
}

func openRead(path string) (uintptr, uintptr) {
	p := make([]byte, len(path)+1)
	copy(p, path)
	fd, e := rawSyscall6(sysOpenat, atFDCWD, uintptr(unsafe.Pointer(&p[0])), oCloexec, 0, 0, 0)
	return fd, e
}

// readFD reads once; 0 at the end or on an error.
func readFD(fd uintptr, b []byte) int {
	if len(b) == 0 {
		return 0
	}
	n, e := rawSyscall6(sysRead, fd, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), 0, 0, 0)
	if e != 0 {
		return 0
	}
	return int(n)
}

func closeFD(fd uintptr) { rawSyscall6(sysClose, fd, 0, 0, 0, 0, 0) }

func madvise(s span, advice uintptr) { rawSyscall6(sysMadvise, s.lo, s.hi-s.lo, advice, 0, 0, 0) }

// errnoText formats a system call's error number without strconv.
func errnoText(e uintptr) string {
	d := []byte{}
	for ; e > 0 || len(d) == 0; e /= 10 {
		d = append([]byte{byte('0' + e%10)}, d...)
	}
	return " (errno " + string(d) + ")"
}
