//go:build linux && !android && (amd64 || arm64)

package exetrim

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"os"
	"os/exec"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

// armedOrSkip skips only where the package is meant not to arm: a
// kernel or container refusing userfaultfd or its asynchronous
// write-protect mode, OLLY_EXETRIM=0, a debugger, a text-relocated build.
// Any other reason is a breakage (a parsing regression, a wrong ioctl
// argument) and fails the test, so the feature cannot go silently off.
func armedOrSkip(t *testing.T) {
	t.Helper()
	armed, why := Status()
	if armed {
		return
	}
	if os.Getenv("EXETRIM_REPORT") == "1" {
		// TestTurnedOff's child, made not to arm; as the helper its
		// -test.run is not parsed (flags stop at __sandbox), so it runs here.
		t.Skip("TestTurnedOff's child process")
	}
	if hint, ok := skipHint(why); ok {
		t.Skipf("not armed here: %s; %s", why, hint)
	}
	t.Fatalf("not armed: %s (not a kernel or container limit: this is a bug)", why)
}

// skipHint says what to do about a reason for not arming that is not a
// bug; ok is false for every other reason.
func skipHint(why string) (hint string, ok bool) {
	for _, r := range []struct{ prefix, hint string }{
		{"userfaultfd refused", "allow userfaultfd (sysctl vm.unprivileged_userfaultfd, or a seccomp profile permitting it, e.g. docker --security-opt seccomp=unconfined) to run this test"},
		{"no asynchronous write-protect", "needs UFFD_FEATURE_WP_ASYNC (Linux 6.7 on amd64, about 6.10 on arm64)"},
		{"turned off", "unset OLLY_EXETRIM to run this test"},
		{"a debugger is attached", "run the test without a debugger"},
		{"the loader patched the text", "build without text relocations (the default Go linking) to run this test"},
	} {
		if len(why) >= len(r.prefix) && why[:len(r.prefix)] == r.prefix {
			return r.hint, true
		}
	}
	return "", false
}

// TestSkipOnlyForLimits: breakages are not taken for kernel limits.
func TestSkipOnlyForLimits(t *testing.T) {
	for why, want := range map[string]bool{
		"userfaultfd refused (errno 1)":                         true,
		"no asynchronous write-protect userfaultfd (errno 22)":  true,
		"turned off (OLLY_EXETRIM=0)":                           true,
		"userfaultfd register (errno 22)":                       false,
		"no PT_PHDR program header":                             false,
		"no AT_PHDR or AT_PAGESZ in the auxiliary vector":       false,
		"the executable is not a little-endian 64-bit ELF file": false,
		"no read-only segment":                                  false,
	} {
		if _, got := skipHint(why); got != want {
			t.Errorf("%q: skip %v, want %v", why, got, want)
		}
	}
}

// mappedPages returns which of the n pages from addr are mapped in this
// process (/proc/self/pagemap, bit 63; readable without privileges). It
// reads them with one pread into buf, allocated by the caller beforehand,
// so that measuring touches as little of the executable as it can.
func mappedPages(t *testing.T, fd int, addr uintptr, buf []byte) []int {
	t.Helper()
	page := uintptr(os.Getpagesize())
	n, err := syscall.Pread(fd, buf, int64(addr/page)*8)
	if err != nil || n != len(buf) {
		t.Fatalf("read pagemap: %d bytes, %v", n, err)
	}
	var mapped []int
	for i := 0; i+8 <= len(buf); i += 8 {
		if binary.LittleEndian.Uint64(buf[i:])&(1<<63) != 0 {
			mapped = append(mapped, i/8)
		}
	}
	return mapped
}

// sink keeps the compiler from dropping the reads the tests make.
var sink byte

// bytesAt is the memory of s, the executable's own read-only mapping:
// outside the Go heap, so the uintptr is turned into a pointer through
// memory (a direct conversion is what vet flags for heap addresses).
func bytesAt(s span) []byte {
	p := *(*unsafe.Pointer)(unsafe.Pointer(&s.lo))
	return unsafe.Slice((*byte)(p), s.hi-s.lo)
}

// TestOneFaultMapsOnePage is what the package is for: after Trim, reading
// one byte of the executable maps that page only, where fault-around
// would have mapped its cached neighbours too. The garbage collector is
// off and the pagemap buffer allocated before Trim, so that nothing but
// the test's own read faults in the window (the collector reads function
// tables, which in a position-independent build lie in read-only data).
func TestOneFaultMapsOnePage(t *testing.T) {
	armedOrSkip(t)
	pm, err := os.Open("/proc/self/pagemap")
	if err != nil {
		t.Skipf("no pagemap: %v", err)
	}
	defer pm.Close()
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	page := uintptr(os.Getpagesize())
	s := state.spans[len(state.spans)-1] // read-only data: never executing under us
	if s.hi-s.lo < 64*page {
		t.Fatalf("read-only segment of %d bytes", s.hi-s.lo)
	}
	mid := (s.lo + (s.hi-s.lo)/2) &^ (64*page - 1)
	b := bytesAt(span{mid, mid + 32*page})
	for i := 0; i < len(b); i += int(page) { // all 32 pages in the page cache and mapped
		sink += b[i]
	}
	fd, buf := int(pm.Fd()), make([]byte, 32*8)
	Trim()
	after := mappedPages(t, fd, mid, buf)
	sink += b[16*page]
	mapped := mappedPages(t, fd, mid, buf)
	// Code the test runs between Trim and the reads (the system call
	// path, in a position-independent build) may map a page of the
	// window itself: allow a few, and judge only what the read added.
	if len(after) > 2 {
		t.Fatalf("pages %v of the window still mapped after Trim", after)
	}
	var added []int
	for _, p := range mapped {
		if !slices.Contains(after, p) {
			added = append(added, p)
		}
	}
	// Fault-around would map the 16 pages of page 16's 64 KiB block; a
	// stray page or two mapped by the runtime meanwhile (seen in a
	// position-independent build) is not that.
	if !slices.Contains(added, 16) || len(added) > 3 {
		t.Fatalf("one read mapped pages %v (mapped before it: %v), want [16] and at most 2 others (fault-around is on)", added, after)
	}
}

// TestTrimKeepsContents: dropped pages come back with the same bytes.
func TestTrimKeepsContents(t *testing.T) {
	armedOrSkip(t)
	var before []uint32
	for _, s := range state.spans {
		before = append(before, crc32.ChecksumIEEE(bytesAt(s)))
	}
	Trim()
	for i, s := range state.spans {
		if got := crc32.ChecksumIEEE(bytesAt(s)); got != before[i] {
			t.Fatalf("span %d changed across Trim: crc %x, was %x", i, got, before[i])
		}
	}
}

// TestSpansAreReadOnlyFileMappings: every span lies inside mappings of the
// executable without write permission, so MADV_DONTNEED never discards
// data.
func TestSpansAreReadOnlyFileMappings(t *testing.T) {
	armedOrSkip(t)
	exe, err := os.Readlink("/proc/self/exe")
	if err != nil {
		t.Fatal(err)
	}
	type mapping struct {
		lo, hi uint64
		perms  string
		path   string
	}
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var maps []mapping
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		lo, hi, _ := strings.Cut(fs[0], "-")
		m := mapping{perms: fs[1]}
		m.lo, _ = strconv.ParseUint(lo, 16, 64)
		m.hi, _ = strconv.ParseUint(hi, 16, 64)
		if len(fs) >= 6 {
			// The path is the rest of the line: it may hold spaces (a
			// TMPDIR with a space in it, where go test builds this binary).
			m.path = strings.TrimLeft(strings.SplitN(strings.TrimLeft(sc.Text(), " "), " ", 6)[5], " ")
		}
		maps = append(maps, m)
	}
	for _, s := range state.spans {
		for a := uint64(s.lo); a < uint64(s.hi); {
			var in *mapping
			for i := range maps {
				if maps[i].lo <= a && a < maps[i].hi {
					in = &maps[i]
				}
			}
			switch {
			case in == nil:
				t.Fatalf("span %#x-%#x: %#x not mapped", s.lo, s.hi, a)
			case in.path != exe || strings.Contains(in.perms, "w"):
				t.Fatalf("span %#x-%#x covers %#x-%#x %s %s", s.lo, s.hi, in.lo, in.hi, in.perms, in.path)
			}
			a = in.hi
		}
	}
}

// TestTurnedOff runs this test binary again with OLLY_EXETRIM=0, and as
// the sandbox helper would be run: neither arms.
func TestTurnedOff(t *testing.T) {
	if os.Getenv("EXETRIM_REPORT") == "1" {
		armed, why := Status()
		os.Stdout.WriteString("armed=" + strconv.FormatBool(armed) + " why=" + why + "\n")
		os.Exit(0)
	}
	for _, tc := range []struct {
		name  string
		argv0 string
		args  []string
		env   string
		want  string
	}{
		{"variable", os.Args[0], []string{"-test.run=^TestTurnedOff$"}, "OLLY_EXETRIM=0", "armed=false why=turned off (OLLY_EXETRIM=0)"},
		{"helper", os.Args[0], []string{HelperArg, "-test.run=^TestTurnedOff$"}, "", "armed=false why=the sandbox helper"},
		// A long argv[0] must not push __sandbox out of the cmdline read.
		{"helper, long argv[0]", strings.Repeat("x", 1000), []string{HelperArg}, "", "armed=false why=the sandbox helper"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], tc.args...)
			cmd.Args[0] = tc.argv0
			cmd.Env = append(os.Environ(), "EXETRIM_REPORT=1", tc.env)
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			if got := strings.TrimSpace(string(out)); got != tc.want {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestProgramHeadersRejectsBadInput(t *testing.T) {
	exe, err := os.ReadFile("/proc/self/exe")
	if err != nil {
		t.Fatal(err)
	}
	if _, why := programHeaders(exe[:4096]); why != "" {
		t.Fatalf("own executable: %s", why)
	}
	for name, b := range map[string][]byte{
		"empty":     nil,
		"not ELF":   bytes.Repeat([]byte{'x'}, 100),
		"32-bit":    append([]byte("\x7fELF\x01\x01"), make([]byte, 100)...),
		"truncated": exe[:80],
	} {
		if _, why := programHeaders(b); why == "" {
			t.Errorf("%s: accepted", name)
		}
	}
}

func FuzzProgramHeaders(f *testing.F) {
	exe, err := os.ReadFile("/proc/self/exe")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(exe[:4096])
	f.Add([]byte("\x7fELF\x02\x01"))
	f.Fuzz(func(t *testing.T, b []byte) {
		phdrs, why := programHeaders(b)
		if why == "" && len(phdrs) == 0 {
			t.Fatal("no headers and no reason")
		}
	})
}
