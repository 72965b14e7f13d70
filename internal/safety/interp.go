package safety

import (
	"slices"
	"strings"
)

// interpArgs is what an interpreter's command line says it will run.
type interpArgs struct {
	code    *field  // inline code (-c, -e, -r, an awk program)
	script  *field  // a script file
	stdin   bool    // code comes from standard input
	module  string  // python -m MODULE
	rest    []field // the arguments after code, script or module
	inPlace bool    // perl/ruby -i: the files are edited in place
}

// interpreter handles python, perl, ruby, node, php, lua, awk, …: inline
// code is checked with heuristics (codescan.go), a script file for having
// been downloaded, code on standard input like a shell's.
func (a *analyzer) interpreter(c *call, lang string) traits {
	ia := parseInterp(lang, c.args[1:])
	if ia.code != nil {
		a.inlineCode(c, lang, *ia.code)
	}
	if ia.inPlace {
		for _, f := range ia.rest {
			a.judge(c.sc, c.text, f, pathOp{effect: effOverwrite})
		}
	}
	if ia.script != nil {
		if lang == "deno" && strings.Contains(ia.script.value, "://") {
			a.add(Medium, "run-remote-package", "Downloads and runs a remote script (deno run URL)", c.text, ia.script.src)
		}
		a.scriptFile(c, *ia.script, false)
	}
	if ia.stdin {
		if code, ok := a.stdinCode(c, lang); ok {
			a.inlineCode(c, lang, code)
		}
	}
	// python -m pip is pip; other modules (venv, http.server, pytest)
	// are judged like scripts: by what they are not known to do.
	if ia.module == "pip" {
		return a.packages(c.with(append([]field{literal("pip")}, ia.rest...)), "pip")
	}
	return 0
}

// parseInterp reads an interpreter command line; each language marks its
// code differently.
func parseInterp(lang string, args []field) interpArgs {
	var ia interpArgs
	var codes []field
	takeCode := func(f field) { codes = append(codes, f) }
	valueOpts, codeOpts := interpOptions(lang)
	i := 0
	if lang == "deno" && len(args) > 0 {
		switch args[0].value {
		case "eval":
			if len(args) > 1 {
				takeCode(args[len(args)-1])
			}
			ia.code = joinCode(codes)
			return ia
		case "run":
			i = 1
		default:
			return ia
		}
	}
	for ; i < len(args); i++ {
		f := args[i]
		v := f.value
		switch {
		case v == "--":
			i++
			goto operands
		case v == "-" || f.dynamic:
			goto operands
		case strings.HasPrefix(v, "--"):
			name, val, hasVal := strings.Cut(v, "=")
			isCode := slices.Contains(codeOpts, name)
			switch {
			case isCode && hasVal:
				takeCode(subField(f, val))
			case isCode && i+1 < len(args):
				i++
				takeCode(args[i])
			case slices.Contains(valueOpts, name) && !hasVal:
				i++
			}
		case len(v) > 1 && v[0] == '-':
			for j := 1; j < len(v); j++ {
				opt := "-" + v[j:j+1]
				attached := v[j+1:]
				switch {
				case slices.Contains(codeOpts, opt):
					if attached != "" {
						takeCode(subField(f, attached))
					} else if i+1 < len(args) {
						i++
						takeCode(args[i])
					}
					if lang == "python" {
						// python -c ends option parsing: the rest is sys.argv.
						ia.code = joinCode(codes)
						ia.rest = args[min(i+1, len(args)):]
						return ia
					}
				case opt == "-m" && lang == "python":
					mod := attached
					if mod == "" && i+1 < len(args) {
						i++
						mod = args[i].value
					}
					ia.module = mod
					ia.rest = args[min(i+1, len(args)):]
					return ia
				case opt == "-f" && (lang == "awk" || lang == "php"):
					if attached != "" {
						sf := subField(f, attached)
						ia.script = &sf
					} else if i+1 < len(args) {
						i++
						ia.script = &args[i]
					}
				case opt == "-i" && (lang == "perl" || lang == "ruby"):
					ia.inPlace = true
				case slices.Contains(valueOpts, opt):
					if attached == "" {
						i++
					}
				default:
					continue
				}
				break
			}
		default:
			goto operands
		}
	}
operands:
	ops := args[min(i, len(args)):]
	ia.code = joinCode(codes)
	switch {
	case ia.code != nil:
		ia.rest = ops
	case ia.script != nil:
		ia.rest = ops
	case lang == "awk" && len(ops) > 0:
		ia.code, ia.rest = &ops[0], ops[1:]
	case len(ops) > 0 && ops[0].value != "-":
		ia.script, ia.rest = &ops[0], ops[1:]
	default:
		ia.stdin = true
		if len(ops) > 0 {
			ia.rest = ops[1:]
		}
	}
	return ia
}

// interpOptions lists, per language, the options taking a value and those
// whose value is code.
func interpOptions(lang string) (value, code []string) {
	switch lang {
	case "python", "pypy":
		return []string{"-W", "-X", "--check-hash-based-pycs"}, []string{"-c"}
	case "perl":
		return []string{"-I", "-M", "-m", "-F", "-x", "-C", "-d", "-D", "-V", "-l", "-0"}, []string{"-e", "-E"}
	case "ruby":
		return []string{"-r", "-I", "-C", "-E", "-F", "-K", "-W", "-x", "--encoding", "--external-encoding"}, []string{"-e"}
	case "node", "bun", "deno":
		return []string{"-r", "--require", "--import", "--loader", "--input-type", "--experimental-loader", "-C", "--conditions"}, []string{"-e", "--eval", "-p", "--print"}
	case "php":
		return []string{"-d", "-c", "-z"}, []string{"-r", "-B", "-R", "-E"}
	case "lua", "luajit":
		return []string{"-l"}, []string{"-e"}
	case "awk":
		return []string{"-v", "-F", "--assign", "--field-separator", "--file"}, []string{"-e", "--source"}
	case "rscript", "osascript":
		return nil, []string{"-e"}
	}
	return nil, nil
}

// joinCode joins several -e snippets, as perl and ruby do, with newlines.
func joinCode(codes []field) *field {
	if len(codes) == 0 {
		return nil
	}
	if len(codes) == 1 {
		return &codes[0]
	}
	j := joinFields(codes)
	var vals, cs []string
	for _, f := range codes {
		vals, cs = append(vals, f.value), append(cs, f.code)
	}
	j.value, j.code = strings.Join(vals, "\n"), strings.Join(cs, "\n")
	return &j
}

// inlineCode checks code given on the command line or on stdin.
func (a *analyzer) inlineCode(c *call, lang string, f field) {
	if f.fetch {
		a.add(Critical, "download-exec", sentence("Runs %s code fetched from the network", lang), c.text, f.src)
	}
	if f.dynamic {
		a.add(High, "interpreter-computed-code", sentence("Runs %s code computed at run time, which cannot be checked", lang), c.text, f.src)
	}
	a.scanCode(c, lang, f)
}
