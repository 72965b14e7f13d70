package safety

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// maxFindStarts bounds how many start paths of find are substituted for {}.
const maxFindStarts = 4

// treeOf makes the field that stands for every path below f, which is what
// find hands to -delete and to {} in -exec.
func treeOf(f field) field {
	n := f
	base := strings.TrimRight(f.value, "/")
	code := strings.TrimRight(f.code, "/")
	if f.value == "" {
		n.value, n.code = "*", code+"*"
	} else {
		n.value, n.code = base+"/*", code+"/*"
	}
	n.globAt = len(n.value) - 1
	n.tree = true
	return n
}

// find deletes with -delete and runs commands with -exec/-execdir/-ok, {}
// standing for the paths found under each start path.
func (a *analyzer) find(c *call) traits {
	args := c.args[1:]
	i := 0
	for i < len(args) {
		v := args[i].value
		switch {
		case v == "-H" || v == "-L" || v == "-P" || strings.HasPrefix(v, "-O"):
			i++
			continue
		case v == "-D":
			i += 2
			continue
		}
		break
	}
	var starts []field
	for ; i < len(args); i++ {
		v := args[i].value
		if args[i].static() && (strings.HasPrefix(v, "-") && v != "-" || v == "(" || v == "!" || v == ")") {
			break
		}
		starts = append(starts, args[i])
	}
	if len(starts) == 0 {
		starts = []field{literal(".")}
	}
	if len(starts) > maxFindStarts {
		starts = starts[:maxFindStarts]
	}
	var t traits
	filtered := false
	for ; i < len(args); i++ {
		switch v := args[i].value; v {
		case "-maxdepth", "-mindepth":
			i++
		case "-depth", "-d", "-xdev", "-mount", "-follow", "-noleaf", "-ignore_readdir_race", "-daystart", "-print", "-print0", "-ls", "-true":
		case "-delete":
			for _, s := range starts {
				if !filtered {
					// Nothing narrows what is deleted: find deletes the
					// start directory itself too, so judge it as rm -rf
					// would (find ~/Documents -delete loses a home folder).
					a.judge(c.sc, c.text, s, pathOp{effect: effDelete, recursive: true})
					continue
				}
				a.judge(c.sc, c.text, treeOf(s), pathOp{effect: effDelete, recursive: true})
			}
		case "-exec", "-execdir", "-ok", "-okdir":
			j := i + 1
			for j < len(args) && !(args[j].static() && (args[j].value == ";" || args[j].value == "+")) {
				j++
			}
			cmd := args[i+1 : j]
			i = j
			if len(cmd) == 0 {
				continue
			}
			for _, s := range starts {
				inner := make([]field, len(cmd))
				for k, f := range cmd {
					inner[k] = f
					if strings.Contains(f.value, "{}") {
						inner[k] = replaced(f, "{}", treeOf(s))
					}
				}
				ic := c.with(inner)
				ic.io, ic.rd = nil, &redirs{}
				t |= a.run(ic)
			}
		case "-fprint", "-fprint0", "-fls", "-fprintf":
			if i+1 < len(args) {
				a.judge(c.sc, c.text, args[i+1], pathOp{effect: effOverwrite})
				i++
			}
		default:
			// A test (-name, -type, -newer, …), an operator or its value:
			// what follows acts only on the paths that match.
			filtered = true
		}
	}
	return t
}

// parallel (GNU) joins its command words and runs them through a shell once
// per input, replacing {} or appending the input.
func (a *analyzer) parallel(c *call) traits {
	args := c.args[1:]
	p := parseOpts(args, optSpec{short: "jSadInNLEC", long: []string{
		"jobs", "sshlogin", "arg-file", "delimiter", "max-args", "max-replace-args", "max-lines", "eof", "colsep",
		"results", "joblog", "tmpdir", "workdir", "timeout", "delay", "retries", "tag-string", "halt", "memfree", "load",
	}, posix: true})
	ops := args[p.rest:]
	var cmd []field
	var inputs []field
	fromFile := false
	k := 0
	for ; k < len(ops) && !isParallelSep(ops[k]); k++ {
	}
	cmd = ops[:k]
	fileGroup := false
	for _, f := range ops[k:] {
		if isParallelSep(f) {
			fileGroup = strings.HasPrefix(f.value, "::::")
			continue
		}
		if fileGroup || f.dynamic {
			fromFile = true
			continue
		}
		inputs = append(inputs, f)
	}
	if _, ok := p.val("-a", "--arg-file"); ok || k == len(ops) {
		fromFile = true
	}
	unknown := field{value: "", code: "${" + unknownVar + "}", dynamic: true, lead: true, globAt: -1}
	if len(inputs) > maxLoopItems {
		inputs, fromFile = inputs[:maxLoopItems], true
	}
	if fromFile {
		inputs = append(inputs, unknown)
	}
	var t traits
	for _, in := range inputs {
		text := in.code
		if in.static() {
			if q, err := syntax.Quote(in.value, syntax.LangBash); err == nil {
				text = q
			}
		}
		var code field
		if len(cmd) == 0 {
			code = in // the inputs are the commands
		} else {
			code = joinFields(cmd)
			if tmpl := code.code; strings.Contains(tmpl, "{}") {
				code.code = strings.ReplaceAll(tmpl, "{}", text)
			} else {
				code.code = tmpl + " " + text
			}
		}
		t |= a.subshell(c, code, nil)
	}
	return t
}

func isParallelSep(f field) bool {
	return f.static() && (f.value == ":::" || f.value == "::::" || f.value == ":::+" || f.value == "::::+")
}
