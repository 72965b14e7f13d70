package safety

import (
	"slices"
	"strings"
)

// optSpec tells parseOpts which options take a value.
type optSpec struct {
	short string   // short options that take a value, e.g. "un" for -u USER -n N
	long  []string // long options (without --) that take a value
	// posix stops at the first operand, as wrappers (sudo, nice, xargs) do:
	// everything after it belongs to the inner command.
	posix bool
}

// parsedOpts is a command line split into options and operands.
type parsedOpts struct {
	flags    []string // "-r", "--recursive": every option seen, in order
	vals     []optVal // the options that carried a value
	operands []field
	// rest is the index in args of the first operand when posix is set
	// (len(args) when there is none).
	rest int
	// maybeOpts: a computed word could hold options, so the analysis must
	// assume the worst ones (rm $FLAGS dir could be rm -rf dir).
	maybeOpts bool
}

type optVal struct {
	name string
	val  field
}

// parseOpts parses args (without the command name) the way getopt_long
// does: clustered short options (-rf), attached values (-n5, --user=x),
// "--" ending options.
func parseOpts(args []field, spec optSpec) parsedOpts {
	var p parsedOpts
	p.rest = len(args)
	for i := 0; i < len(args); i++ {
		f := args[i]
		v := f.value
		if f.dynamic && !f.procSubst {
			p.maybeOpts = true
		}
		switch {
		case v == "--" && f.static():
			p.addOperands(args, i+1, spec.posix)
			return p
		case strings.HasPrefix(v, "--") && len(v) > 2:
			name, val, hasVal := strings.Cut(v[2:], "=")
			p.flags = append(p.flags, "--"+name)
			if hasVal {
				p.vals = append(p.vals, optVal{"--" + name, subField(f, val)})
			} else if slices.Contains(spec.long, name) && i+1 < len(args) {
				i++
				p.vals = append(p.vals, optVal{"--" + name, args[i]})
			}
		case len(v) > 1 && v[0] == '-' && !f.lead:
			i = p.cluster(args, i, spec)
		default:
			if spec.posix {
				p.addOperands(args, i, true)
				return p
			}
			p.operands = append(p.operands, f)
		}
	}
	return p
}

// cluster parses -abc starting at args[i] and returns the last index used.
func (p *parsedOpts) cluster(args []field, i int, spec optSpec) int {
	f := args[i]
	v := f.value
	for j := 1; j < len(v); j++ {
		name := "-" + v[j:j+1]
		p.flags = append(p.flags, name)
		if strings.IndexByte(spec.short, v[j]) < 0 {
			continue
		}
		if j+1 < len(v) {
			p.vals = append(p.vals, optVal{name, subField(f, v[j+1:])})
		} else if i+1 < len(args) {
			i++
			p.vals = append(p.vals, optVal{name, args[i]})
		}
		break
	}
	return i
}

func (p *parsedOpts) addOperands(args []field, from int, posix bool) {
	if posix {
		p.rest = from
	}
	p.operands = append(p.operands, args[from:]...)
}

// has reports whether any of the given options was present ("-r",
// "--recursive").
func (p *parsedOpts) has(names ...string) bool {
	for _, f := range p.flags {
		if slices.Contains(names, f) {
			return true
		}
	}
	return false
}

// val returns the last value given to any of the named options.
func (p *parsedOpts) val(names ...string) (field, bool) {
	for i := len(p.vals) - 1; i >= 0; i-- {
		if slices.Contains(names, p.vals[i].name) {
			return p.vals[i].val, true
		}
	}
	return field{}, false
}

// subField is the part of f after an option name (-oFILE, --out=FILE).
func subField(f field, s string) field {
	n := f
	n.value = s
	n.code = s
	n.globAt = -1
	if f.globAt >= len(f.value)-len(s) {
		n.globAt = f.globAt - (len(f.value) - len(s))
	}
	n.lead = false
	return n
}
