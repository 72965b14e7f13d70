package safety

import (
	"strings"
)

// modeOperands splits chmod/chown arguments into options, the mode or owner
// (absent with --reference) and the files. A mode may itself start with a
// dash (chmod -w file), so only known option letters count as options.
func modeOperands(args []field, letters string) (recursive bool, mode *field, files []field) {
	ref := false
	for i := range args {
		f := args[i]
		v := f.value
		switch {
		case f.static() && (v == "--recursive"):
			recursive = true
		case f.static() && strings.HasPrefix(v, "--reference"):
			ref = true
		case f.static() && strings.HasPrefix(v, "--"):
		case f.static() && len(v) > 1 && v[0] == '-' && strings.Trim(v[1:], letters) == "":
			recursive = recursive || strings.Contains(v, "R")
		case mode == nil && !ref:
			mode = &args[i]
		default:
			files = append(files, f)
		}
	}
	return recursive, mode, files
}

func (a *analyzer) chmod(c *call) {
	rec, mode, files := modeOperands(c.args[1:], "Rcfv")
	m, dynamic := "", false
	if mode != nil {
		m, dynamic = mode.value, mode.dynamic
	}
	world, setuid := worldWritable(m) || dynamic, setID(m)
	for _, f := range files {
		pl := a.classify(c.sc, f)
		switch pl.kind {
		case placeSink:
			continue
		case placeVital, placeSystem, placeDevice:
			if rec {
				a.add(Critical, "chmod-recursive-root", sentence("Recursively changes permissions of %s", a.describe(pl)), c.text, f.src)
			} else {
				a.add(High, "chmod-system", sentence("Changes permissions of the system path %s", a.describe(pl)), c.text, f.src)
			}
		case placeWorkspace:
			if rec {
				a.add(High, "chmod-recursive", sentence("Recursively changes permissions of everything under %s", f.src), c.text, f.src)
			} else if !world && !setuid {
				a.add(Medium, "chmod", sentence("Changes permissions of %s", f.src), c.text, f.src)
			}
		case placeTemp:
			a.add(Medium, "chmod", sentence("Changes permissions of %s", f.src), c.text, f.src)
		default:
			a.add(High, "chmod-outside-workspace", sentence("Changes permissions of %s, outside the workspace", f.src), c.text, f.src)
		}
		if world {
			a.add(High, "chmod-world-writable", sentence("Makes %s writable by every user (mode %s)", f.src, m), c.text, f.src)
		}
		if setuid {
			a.add(High, "chmod-setuid", sentence("Makes %s run with its owner's privileges (setuid/setgid)", f.src), c.text, f.src)
		}
	}
}

// worldWritable reports whether a chmod mode lets every user write.
func worldWritable(m string) bool {
	if isOctal(m) {
		return (m[len(m)-1]-'0')&2 != 0
	}
	for _, clause := range strings.Split(m, ",") {
		who := strings.TrimLeft(clause, "ugoa")
		if (strings.ContainsAny(clause[:len(clause)-len(who)], "oa")) && (strings.HasPrefix(who, "+") || strings.HasPrefix(who, "=")) && strings.Contains(who, "w") {
			return true
		}
	}
	return false
}

// setID reports whether a chmod mode sets the setuid or setgid bit.
func setID(m string) bool {
	if isOctal(m) {
		return len(m) == 4 && (m[0]-'0')&6 != 0
	}
	for _, clause := range strings.Split(m, ",") {
		op := strings.TrimLeft(clause, "ugoa")
		if (strings.HasPrefix(op, "+") || strings.HasPrefix(op, "=")) && strings.Contains(op, "s") {
			return true
		}
	}
	return false
}

func isOctal(s string) bool {
	if len(s) < 3 || len(s) > 4 {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '7' {
			return false
		}
	}
	return true
}

func (a *analyzer) chown(c *call) {
	rec, _, files := modeOperands(c.args[1:], "RhHLPcfv")
	name := commandName(c.args[0].value)
	for _, f := range files {
		pl := a.classify(c.sc, f)
		if rec && (pl.kind == placeVital || pl.kind == placeSystem || pl.kind == placeDevice) {
			a.add(Critical, "chown-recursive-root", sentence("Recursively changes the owner of %s", a.describe(pl)), c.text, f.src)
			continue
		}
		a.add(High, "chown", sentence("Changes the owner or group of %s (%s)", f.src, name), c.text, f.src)
	}
}

func (a *analyzer) attrs(c *call, name string) {
	a.add(High, "file-attributes", sentence("Changes file attributes or access lists (%s)", name), c.text, c.args[0].src)
}
