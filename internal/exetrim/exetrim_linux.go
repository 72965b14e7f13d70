//go:build linux && !android && (amd64 || arm64)

package exetrim

import "unsafe"

// Linux ABI constants (the same on amd64 and arm64). The package cannot
// import syscall or x/sys/unix without being initialised later (see the
// package documentation), so it makes its few system calls itself.
const (
	atFDCWD        = ^uintptr(99) // AT_FDCWD, -100
	oCloexec       = 0x80000
	oNonblock      = 0x800
	madvDontneed   = 4
	madvNohugepage = 15

	uffdUserModeOnly   = 1       // UFFD_USER_MODE_ONLY: allowed unprivileged
	uffdAPI            = 0xAA    // UFFD_API
	uffdFeatureWPAsync = 1 << 15 // UFFD_FEATURE_WP_ASYNC (Linux 6.7; arm64 about 6.10)
	uffdRegisterModeWP = 1 << 1  // UFFDIO_REGISTER_MODE_WP
	uffdioAPI          = 0xC018AA3F
	uffdioRegister     = 0xC020AA00

	atPhdr    = 3 // auxiliary vector: where the program headers are
	atPagesz  = 6
	ptLoad    = 1 // program header types and flags (elf.h)
	ptDynamic = 2
	ptPhdr    = 6
	pfW       = 2
)

// rawSyscall6 is implemented in sys_linux_*.s.
func rawSyscall6(num, a1, a2, a3, a4, a5, a6 uintptr) (r1, errno uintptr)

type uffdioAPIArg struct {
	api, features, ioctls uint64
}

type uffdioRegisterArg struct {
	start, len, mode, ioctls uint64
}

// phdr is the part of an Elf64_Phdr used here.
type phdr struct {
	typ, flags           uint32
	vaddr, filesz, memsz uint64
}

// span is a page-aligned address range [lo, hi).
type span struct{ lo, hi uintptr }

var state struct {
	spans []span // the executable's read-only segments, once armed
	fd    uintptr
	err   string // why not armed (for Status)
}

func init() {
	state.spans, state.fd, state.err = arm()
}

func arm() ([]span, uintptr, string) {
	if sandboxHelper() {
		// The sandbox helper only confines itself and executes the
		// command: one fault per page would cost it CPU and save nothing.
		return nil, 0, "the sandbox helper"
	}
	if envSet("OLLY_EXETRIM=0") {
		return nil, 0, "turned off (OLLY_EXETRIM=0)"
	}
	if traced() {
		return nil, 0, "a debugger is attached, or /proc/self/status names no TracerPid (a debugger's breakpoints live in copied text pages)"
	}
	spans, why := readOnlySegments()
	if why != "" {
		return nil, 0, why
	}
	fd, why := register(spans)
	if why != "" {
		return nil, 0, why
	}
	for _, s := range spans {
		madvise(s, madvNohugepage)
	}
	drop(spans)
	return spans, fd, ""
}

// Trim drops the executable's read-only pages that are mapped now; those
// used again are mapped back one page at a time. main calls it after
// package initialisation, and print, the TUI, serve and rpc again once
// their own start-up is over (doc.go). It does nothing when the package could not arm (see
// Status) or a debugger has attached since.
func Trim() {
	if len(state.spans) == 0 || traced() {
		return
	}
	drop(state.spans)
}

// Spans returns the read-only ranges of the executable that are armed, as
// [start, end) addresses (page-aligned), or nil when nothing is armed.
func Spans() [][2]uintptr {
	if len(state.spans) == 0 {
		return nil
	}
	out := make([][2]uintptr, 0, len(state.spans))
	for _, s := range state.spans {
		out = append(out, [2]uintptr{s.lo, s.hi})
	}
	return out
}

// Status reports whether the executable's mappings are armed and, if not,
// why.
func Status() (armed bool, why string) {
	return len(state.spans) > 0, state.err
}

func drop(spans []span) {
	for _, s := range spans {
		madvise(s, madvDontneed)
	}
}

// register arms a userfaultfd in asynchronous write-protect mode over
// spans. The kernel resolves write-protect faults of such a descriptor
// itself and these spans are never written, so nothing is ever read from
// it; it stays open for the life of the process (closing it would
// unregister the spans).
func register(spans []span) (uintptr, string) {
	fd, e := rawSyscall6(sysUserfaultfd, oCloexec|oNonblock|uffdUserModeOnly, 0, 0, 0, 0, 0)
	if e != 0 {
		return 0, "userfaultfd refused" + errnoText(e)
	}
	api := uffdioAPIArg{api: uffdAPI, features: uffdFeatureWPAsync}
	if _, e := rawSyscall6(sysIoctl, fd, uffdioAPI, uintptr(unsafe.Pointer(&api)), 0, 0, 0); e != 0 {
		closeFD(fd)
		return 0, "no asynchronous write-protect userfaultfd (Linux 6.7 on amd64, about 6.10 on arm64)" + errnoText(e)
	}
	for _, s := range spans {
		reg := uffdioRegisterArg{start: uint64(s.lo), len: uint64(s.hi - s.lo), mode: uffdRegisterModeWP}
		if _, e := rawSyscall6(sysIoctl, fd, uffdioRegister, uintptr(unsafe.Pointer(&reg)), 0, 0, 0); e != 0 {
			closeFD(fd) // unregisters what was registered
			return 0, "userfaultfd register" + errnoText(e)
		}
	}
	return fd, ""
}

// readOnlySegments finds the executable's loaded segments without write
// permission from its program headers (read from /proc/self/exe; where
// they were loaded, for a position-independent build, from AT_PHDR).
// Only whole pages inside a segment are returned, so a page shared with a
// writable segment is never included.
func readOnlySegments() ([]span, string) {
	phdrAddr, page := auxv()
	if phdrAddr == 0 || page == 0 || page&(page-1) != 0 {
		return nil, "no AT_PHDR or AT_PAGESZ in the auxiliary vector"
	}
	var buf [4096]byte
	phdrs, why := programHeaders(buf[:readFile("/proc/self/exe", buf[:])])
	if why != "" {
		return nil, why
	}
	bias, found := uintptr(0), false
	for _, p := range phdrs {
		if p.typ == ptPhdr {
			bias, found = phdrAddr-uintptr(p.vaddr), true
		}
	}
	if !found {
		return nil, "no PT_PHDR program header"
	}
	if textRelocated(phdrs, bias) {
		return nil, "the loader patched the text (DT_TEXTREL): dropped pages would come back unpatched"
	}
	var spans []span
	for _, p := range phdrs {
		if p.typ != ptLoad || p.flags&pfW != 0 {
			continue
		}
		lo := (bias + uintptr(p.vaddr) + page - 1) &^ (page - 1)
		hi := (bias + uintptr(p.vaddr) + uintptr(p.filesz)) &^ (page - 1)
		if hi > lo {
			spans = append(spans, span{lo, hi})
		}
	}
	if len(spans) == 0 {
		return nil, "no read-only segment"
	}
	return spans, ""
}

// programHeaders decodes the program header table of a little-endian
// 64-bit ELF file from its first bytes.
func programHeaders(b []byte) ([]phdr, string) {
	if len(b) < 64 || string(b[:4]) != "\x7fELF" || b[4] != 2 || b[5] != 1 {
		return nil, "the executable is not a little-endian 64-bit ELF file"
	}
	off, size, num := le64(b[32:]), uint64(le16(b[54:])), uint64(le16(b[56:]))
	if size != 56 || num == 0 || off > uint64(len(b)) || num > (uint64(len(b))-off)/size {
		return nil, "the program headers are not at the start of the executable"
	}
	phdrs := make([]phdr, num)
	for i := range phdrs {
		h := b[off+uint64(i)*size:]
		phdrs[i] = phdr{typ: le32(h), flags: le32(h[4:]), vaddr: le64(h[16:]), filesz: le64(h[32:]), memsz: le64(h[40:])}
	}
	return phdrs, ""
}

// auxv returns AT_PHDR and AT_PAGESZ from /proc/self/auxv.
func auxv() (phdrAddr, page uintptr) {
	var buf [4096]byte
	b := buf[:readFile("/proc/self/auxv", buf[:])]
	for i := 0; i+16 <= len(b); i += 16 {
		switch le64(b[i:]) {
		case atPhdr:
			phdrAddr = uintptr(le64(b[i+8:]))
		case atPagesz:
			page = uintptr(le64(b[i+8:]))
		}
	}
	return phdrAddr, page
}

func le16(b []byte) uint16 { return uint16(b[0]) | uint16(b[1])<<8 }
func le32(b []byte) uint32 { return uint32(le16(b)) | uint32(le16(b[2:]))<<16 }
func le64(b []byte) uint64 { return uint64(le32(b)) | uint64(le32(b[4:]))<<32 }
