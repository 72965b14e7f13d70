package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
)

// Sentinels for errors.Is. Errors a model can fix by choosing another path
// wrap one of these (or fs.ErrNotExist) and say what to do.
var (
	// ErrInvalidPath: empty, a NUL byte, or too long for the operating system.
	ErrInvalidPath = errors.New("invalid path")
	// ErrSymlinkLoop: symbolic links that point at each other (ELOOP).
	ErrSymlinkLoop = errors.New("too many levels of symbolic links")
	// ErrIsDir: a write aimed at an existing directory.
	ErrIsDir = errors.New("is a directory")
	// ErrNotDir: a path that continues below a file ("main.go/x").
	ErrNotDir = errors.New("not a directory")
)

// OutsideError reports a path that resolves outside every workspace root
// and allowed directory. Use errors.As to get it: the approval flow offers
// the person to allow Dir for the session.
type OutsideError struct {
	// Path is the path as given.
	Path string
	// Resolved is where it leads once "..", "~" and symbolic links are
	// resolved.
	Resolved string
	// Dir is the existing directory the person would allow to permit
	// the access: Resolved itself when it is a directory, otherwise the
	// deepest existing directory above it.
	Dir string
	// Roots are the workspace roots, for the message.
	Roots []string
}

func (e *OutsideError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%q resolves to %s, which is outside the workspace (%s)", e.Path, e.Resolved, strings.Join(e.Roots, ", "))
	b.WriteString("; olly reads and writes only inside the workspace roots: use a path inside them")
	if e.Dir != "" {
		fmt.Fprintf(&b, ", or ask the person to allow %s for this session", e.Dir)
	}
	return b.String()
}

// NotFoundError reports a path to read that exists under no root. It
// matches fs.ErrNotExist with errors.Is.
type NotFoundError struct {
	// Path is the path as given.
	Path string
	// Resolved is the absolute path olly looked for.
	Resolved string
	// Roots are the roots searched.
	Roots []string
}

func (e *NotFoundError) Error() string {
	where := "the workspace root " + strings.Join(e.Roots, "")
	if len(e.Roots) > 1 {
		where = "any workspace root (" + strings.Join(e.Roots, ", ") + ")"
	}
	return fmt.Sprintf("%q does not exist under %s; check the spelling, or list the directory to see what is there", e.Path, where)
}

// Unwrap makes errors.Is(err, fs.ErrNotExist) true.
func (e *NotFoundError) Unwrap() error { return fs.ErrNotExist }
