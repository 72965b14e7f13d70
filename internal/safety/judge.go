package safety

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// effect is what a command does to a path argument.
type effect uint8

const (
	effDelete    effect = iota // removes it (rm, find -delete, shred -u)
	effMove                    // takes it away from where it was (the source of mv)
	effOverwrite               // replaces or truncates its content
	effAppend                  // adds to it or edits it in place without truncating
	effCreate                  // creates an entry (touch, mkdir, ln)
)

// pathOp is one operation on a path argument.
type pathOp struct {
	effect    effect
	recursive bool
	force     bool
	link      bool // creates a symbolic or hard link (ln): the path then reads as its target
}

// judge classifies f and records what op on it means; the same table
// serves rm, mv, cp, tee, dd, redirections and the inline interpreters.
func (a *analyzer) judge(sc *scope, cmd string, f field, op pathOp) place {
	p := a.classify(sc, f)
	op.recursive = op.recursive || f.tree
	if op.effect == effDelete || op.effect == effMove {
		a.judgeDelete(cmd, f, p, op)
	} else {
		a.judgeWrite(cmd, f, p, op)
	}
	return p
}

func (a *analyzer) judgeDelete(cmd string, f field, p place, op pathOp) {
	verb := "Deletes"
	if op.effect == effMove {
		verb = "Moves away"
	}
	what := a.describe(p)
	switch p.kind {
	case placeSink, placeDevice, placeSystem:
		a.add(Critical, "delete-system", fmt.Sprintf("%s the system path %s", verb, what), cmd, f.src)
	case placeVital:
		switch {
		case p.root && (op.recursive || op.effect == effMove):
			a.add(Critical, "delete-workspace-root", sentence("%s %s, the whole project, which checkpoints cannot restore", verb, what), cmd, f.src)
		case op.recursive || op.effect == effMove:
			a.add(Critical, "delete-root", sentence("%s %s", recursively(verb, op), what), cmd, f.src)
		default:
			a.add(High, "delete-outside-workspace", sentence("%s %s, outside the workspace", verb, what), cmd, f.src)
		}
	case placeUnknown:
		a.add(High, "delete-computed-target", sentence("%s %s, %s", recursively(verb, op), f.src, unknownWhere(p)), cmd, f.src)
	case placeWorkspace:
		switch {
		case op.effect == effMove:
			a.add(Medium, "move", sentence("Moves %s; the old path disappears and the destination may be replaced", f.src), cmd, f.src)
		case op.recursive:
			a.add(High, "delete-recursive", sentence("Recursively deletes %s in the workspace; checkpoints do not cover shell commands", f.src), cmd, f.src)
		case op.force:
			a.add(High, "delete-force", sentence("Force-deletes %s in the workspace without confirmation", f.src), cmd, f.src)
		default:
			a.add(Medium, "delete-file", sentence("Deletes %s in the workspace", f.src), cmd, f.src)
		}
	case placeTemp:
		a.add(Medium, "delete-temp", sentence("%s %s in the temporary directory", verb, f.src), cmd, f.src)
	default:
		a.add(High, "delete-outside-workspace", sentence("%s %s, outside the workspace", recursively(verb, op), what), cmd, f.src)
	}
}

func (a *analyzer) judgeWrite(cmd string, f field, p place, op pathOp) {
	verb := "Writes to"
	switch op.effect {
	case effOverwrite:
		verb = "Overwrites"
	case effCreate:
		verb = "Creates"
	}
	inner := p
	inner.contents = false
	what := a.describe(p)
	if p.contents {
		// An archive extracted into a directory writes files in it.
		verb, what = "Writes files into", a.describe(inner)
	}
	if p.kind != placeSink && p.kind != placeUnknown && p.kind != placeDevice && !p.contents {
		if rule, why := a.obeyedFile(p.path, op); rule != "" {
			a.add(Critical, rule, sentence("%s %s, %s", verb, what, why), cmd, f.src)
			return
		}
	}
	switch p.kind {
	case placeSink, placeWorkspace:
	case placeDevice:
		a.add(Critical, "write-device", sentence("Writes directly to the device %s, destroying what is on it", what), cmd, f.src)
	case placeSystem:
		switch {
		case p.auth:
			a.add(Critical, "write-auth-file", sentence("Changes %s, which controls logins and root access", what), cmd, f.src)
		case op.effect == effOverwrite && p.contents:
			a.add(Critical, "write-system", sentence("Writes files into the system directory %s", what), cmd, f.src)
		case op.effect == effOverwrite:
			a.add(Critical, "write-system", sentence("Overwrites the system file %s", what), cmd, f.src)
		default:
			a.add(High, "write-outside-workspace", sentence("%s %s, a system path", verb, what), cmd, f.src)
		}
	case placeUnknown:
		a.add(High, "write-computed-target", sentence("%s %s, %s", verb, f.src, unknownWhere(p)), cmd, f.src)
	case placeTemp:
		a.add(Medium, "write-temp", sentence("%s %s in the temporary directory", verb, what), cmd, f.src)
	default:
		if op.effect == effCreate && p.kind == placeOutside {
			a.add(Medium, "create-outside-workspace", sentence("Creates %s, outside the workspace", what), cmd, f.src)
			return
		}
		a.add(High, "write-outside-workspace", sentence("%s %s, outside the workspace", verb, what), cmd, f.src)
	}
}

// unknownWhere says why a place is unknown, for a reason sentence.
func unknownWhere(p place) string {
	if p.relative {
		return "relative to a directory only known at run time"
	}
	return "a path only known at run time"
}

func recursively(verb string, op pathOp) string {
	if op.recursive && op.effect == effDelete {
		return "Recursively " + strings.ToLower(verb[:1]) + verb[1:]
	}
	return verb
}

// sentence formats a reason and makes sure it starts with a capital letter.
func sentence(format string, args ...any) string {
	s := fmt.Sprintf(format, args...)
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:]
}
