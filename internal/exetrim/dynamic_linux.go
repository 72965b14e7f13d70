//go:build linux && !android && (amd64 || arm64)

package exetrim

import "unsafe"

// Dynamic section tags and flags (elf.h).
const (
	dtNull     = 0
	dtTextrel  = 22
	dtFlags    = 30
	dfTextrel  = 4
	dynEntSize = 16 // Elf64_Dyn: tag, value
)

// textRelocated reports whether the loader relocated the executable's
// read-only segments at start-up (DT_TEXTREL, or DF_TEXTREL in DT_FLAGS):
// those pages are then private, patched copies, which MADV_DONTNEED would
// discard and the next fault would map back unpatched from the file. The
// dynamic section is read where the loader mapped it (bias + p_vaddr).
func textRelocated(phdrs []phdr, bias uintptr) bool {
	for _, p := range phdrs {
		if p.typ != ptDynamic || p.memsz < dynEntSize {
			continue
		}
		addr := bias + uintptr(p.vaddr)
		// The dynamic section is outside the Go heap: the address goes
		// through memory to become a pointer (see bytesAt in the tests).
		ptr := *(*unsafe.Pointer)(unsafe.Pointer(&addr))
		return dynamicTextrel(unsafe.Slice((*byte)(ptr), p.memsz))
	}
	return false
}

// dynamicTextrel reports whether the Elf64_Dyn entries in b (up to
// DT_NULL) carry DT_TEXTREL or DT_FLAGS with DF_TEXTREL.
func dynamicTextrel(b []byte) bool {
	for i := 0; i+dynEntSize <= len(b); i += dynEntSize {
		switch tag, val := le64(b[i:]), le64(b[i+8:]); tag {
		case dtNull:
			return false
		case dtTextrel:
			return true
		case dtFlags:
			if val&dfTextrel != 0 {
				return true
			}
		}
	}
	return false
}
