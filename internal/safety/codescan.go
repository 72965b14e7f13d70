package safety

import (
	"slices"
	"strings"
)

// The inline-interpreter check is a heuristic: it looks for the library
// calls that delete, write or run commands, takes their first arguments
// when they are plain string literals, and judges those like the shell's
// own rm, > and bash -c. Calls whose arguments are not literals are high,
// since the analysis cannot see where they point. docs/safety.md lists the
// calls per language.

// maxCodeScan bounds how much inline code is scanned.
const maxCodeScan = 64 << 10

type codeKind uint8

const (
	codeDelete     codeKind = iota // deletes its first argument
	codeDeleteTree                 // deletes a tree
	codeWrite                      // writes its first argument
	codeWriteDest                  // writes its last argument (rename, copy, move)
	codeOpen                       // opens a file; a write when the mode says so
	codeExec                       // runs a shell command or an argv list
)

type codePattern struct {
	pat  string
	kind codeKind
}

func codePatterns(lang string) []codePattern {
	switch lang {
	case "python", "pypy":
		return []codePattern{
			{"shutil.rmtree", codeDeleteTree}, {"rmtree", codeDeleteTree},
			{"os.remove", codeDelete}, {"os.unlink", codeDelete}, {"os.rmdir", codeDelete}, {"os.removedirs", codeDelete},
			{".unlink", codeDelete}, {".rmdir", codeDelete},
			{"shutil.move", codeWriteDest}, {"shutil.copy", codeWriteDest}, {"shutil.copyfile", codeWriteDest},
			{"shutil.copy2", codeWriteDest}, {"shutil.copytree", codeWriteDest}, {"os.rename", codeWriteDest},
			{"os.replace", codeWriteDest}, {"os.truncate", codeWrite}, {"os.chmod", codeWrite}, {"os.chown", codeWrite},
			{".write_text", codeWrite}, {".write_bytes", codeWrite}, {"open", codeOpen},
			{"os.system", codeExec}, {"os.popen", codeExec}, {"subprocess.run", codeExec}, {"subprocess.call", codeExec},
			{"subprocess.check_call", codeExec}, {"subprocess.check_output", codeExec}, {"subprocess.Popen", codeExec},
			{"subprocess.getoutput", codeExec}, {"subprocess.getstatusoutput", codeExec}, {"os.execv", codeExec},
			{"os.execvp", codeExec}, {"os.execl", codeExec}, {"os.execlp", codeExec}, {"os.spawnv", codeExec},
			{"os.spawnl", codeExec}, {"pty.spawn", codeExec}, {"commands.getoutput", codeExec},
		}
	case "perl":
		return []codePattern{
			{"rmtree", codeDeleteTree}, {"remove_tree", codeDeleteTree}, {"unlink", codeDelete}, {"rmdir", codeDelete},
			{"rename", codeWriteDest}, {"move", codeWriteDest}, {"copy", codeWriteDest}, {"chmod", codeWrite},
			{"truncate", codeWrite}, {"open", codeOpen}, {"system", codeExec}, {"exec", codeExec},
		}
	case "ruby":
		return []codePattern{
			{"FileUtils.rm_rf", codeDeleteTree}, {"FileUtils.rm_r", codeDeleteTree}, {"FileUtils.remove_dir", codeDeleteTree},
			{"FileUtils.remove_entry", codeDeleteTree}, {"FileUtils.rmtree", codeDeleteTree}, {"rm_rf", codeDeleteTree},
			{"FileUtils.rm", codeDelete}, {"FileUtils.remove", codeDelete}, {"File.delete", codeDelete},
			{"File.unlink", codeDelete}, {"Dir.rmdir", codeDelete}, {"Dir.delete", codeDelete}, {"Dir.unlink", codeDelete},
			{"File.write", codeWrite}, {"IO.write", codeWrite}, {"FileUtils.mv", codeWriteDest}, {"FileUtils.cp", codeWriteDest},
			{"File.rename", codeWriteDest}, {"FileUtils.chmod", codeWriteDest}, {"File.open", codeOpen}, {"File.new", codeOpen},
			{"system", codeExec}, {"exec", codeExec}, {"spawn", codeExec}, {"IO.popen", codeExec}, {"Open3.capture2", codeExec},
			{"Open3.capture3", codeExec}, {"Open3.popen3", codeExec},
		}
	case "node", "bun", "deno":
		return []codePattern{
			{"rmSync", codeDeleteTree}, {"fs.rm", codeDeleteTree}, {"fs.promises.rm", codeDeleteTree}, {"rimraf", codeDeleteTree},
			{"rmdirSync", codeDeleteTree}, {"Deno.remove", codeDeleteTree}, {"Deno.removeSync", codeDeleteTree},
			{"unlinkSync", codeDelete}, {"fs.unlink", codeDelete}, {"fs.rmdir", codeDelete},
			{"writeFileSync", codeWrite}, {"writeFile", codeWrite}, {"appendFileSync", codeWrite}, {"appendFile", codeWrite},
			{"truncateSync", codeWrite}, {"chmodSync", codeWrite}, {"createWriteStream", codeWrite},
			{"Deno.writeTextFile", codeWrite}, {"Deno.writeFile", codeWrite}, {"Bun.write", codeWrite},
			{"renameSync", codeWriteDest}, {"copyFileSync", codeWriteDest}, {"cpSync", codeWriteDest},
			{"execSync", codeExec}, {"exec", codeExec}, {"execFile", codeExec}, {"execFileSync", codeExec},
			{"spawn", codeExec}, {"spawnSync", codeExec}, {"Deno.Command", codeExec}, {"Deno.run", codeExec}, {"Bun.spawn", codeExec},
		}
	case "php":
		return []codePattern{
			{"unlink", codeDelete}, {"rmdir", codeDelete}, {"file_put_contents", codeWrite}, {"rename", codeWriteDest},
			{"copy", codeWriteDest}, {"chmod", codeWrite}, {"fopen", codeOpen}, {"system", codeExec}, {"exec", codeExec},
			{"shell_exec", codeExec}, {"passthru", codeExec}, {"popen", codeExec}, {"proc_open", codeExec},
		}
	case "lua", "luajit":
		return []codePattern{{"os.remove", codeDelete}, {"os.rename", codeWriteDest}, {"io.open", codeOpen}, {"os.execute", codeExec}, {"io.popen", codeExec}}
	case "awk":
		return []codePattern{{"system", codeExec}}
	case "rscript":
		return []codePattern{{"unlink", codeDeleteTree}, {"file.remove", codeDelete}, {"system", codeExec}, {"system2", codeExec}}
	case "osascript":
		return []codePattern{{"do shell script", codeExec}}
	}
	return nil
}

// scanCode applies the patterns of lang to inline code.
func (a *analyzer) scanCode(c *call, lang string, f field) {
	text := f.value
	if len(text) > maxCodeScan {
		text = text[:maxCodeScan]
	}
	if strings.Contains(text, "fork") && (strings.Contains(text, "while") || strings.Contains(text, "loop") || strings.Contains(text, "for(;;)") || strings.Contains(text, "for (;;)")) {
		a.add(Critical, "fork-bomb", sentence("The %s code forks in a loop: a fork bomb that freezes the machine", lang), c.text, f.src)
	}
	for _, p := range codePatterns(lang) {
		from := 0
		for n := 0; n < 8; n++ {
			i := indexWord(text[from:], p.pat)
			if i < 0 {
				break
			}
			i += from
			from = i + len(p.pat)
			args, called := callArgs(text, from, lang)
			if !called {
				continue
			}
			a.codeCall(c, lang, f, p, text[:i], args)
		}
	}
	switch lang {
	case "perl", "ruby", "php":
		for _, cmd := range backticks(text) {
			a.subshell(c, literal(cmd), nil)
		}
	case "awk":
		a.awkPipes(c, text)
	}
}

// codeCall judges one call found in inline code; before is the code
// preceding it (for pathlib's Path('x').unlink()).
func (a *analyzer) codeCall(c *call, lang string, f field, p codePattern, before string, args []string) {
	name := strings.TrimSpace(p.pat)
	switch p.kind {
	case codeDelete, codeDeleteTree:
		path, ok := argLiteral(args, 0, lang)
		if !ok && strings.HasPrefix(p.pat, ".") {
			path, ok = receiverLiteral(before, lang)
		}
		if !ok {
			a.add(High, "interpreter-delete", sentence("The %s code deletes files (%s) at paths the analysis cannot see", lang, name), c.text, f.src)
			return
		}
		a.judge(c.sc, c.text, literal(path), pathOp{effect: effDelete, recursive: p.kind == codeDeleteTree})
	case codeWrite, codeWriteDest:
		idx := 0
		if p.kind == codeWriteDest {
			idx = len(args) - 1
			if lang == "ruby" && name == "FileUtils.chmod" {
				idx = 1
			}
		}
		path, ok := argLiteral(args, idx, lang)
		if !ok && strings.HasPrefix(p.pat, ".") {
			path, ok = receiverLiteral(before, lang)
		}
		if !ok {
			a.add(High, "interpreter-write", sentence("The %s code writes files (%s) at paths the analysis cannot see", lang, name), c.text, f.src)
			return
		}
		a.judge(c.sc, c.text, literal(path), pathOp{effect: effOverwrite})
	case codeOpen:
		a.codeOpen(c, lang, f, args)
	case codeExec:
		a.codeExec(c, lang, f, name, args)
	}
}

// codeOpen judges open(path, mode) when the mode writes; perl's open
// takes the mode inside the path (">file") or as a separate argument.
func (a *analyzer) codeOpen(c *call, lang string, f field, args []string) {
	var path, mode string
	var ok bool
	if lang == "perl" {
		switch len(args) {
		case 2:
			spec, lit := literalOf(args[1], lang)
			if !lit {
				return
			}
			spec = strings.TrimSpace(spec)
			switch {
			case strings.HasPrefix(spec, "|") || strings.HasSuffix(spec, "|"):
				a.subshell(c, literal(strings.Trim(spec, "| ")), nil)
				return
			case strings.HasPrefix(spec, ">") || strings.HasPrefix(spec, "+"):
				path, mode, ok = strings.TrimLeft(spec, "+>< "), "w", true
			}
		case 3:
			mode, _ = literalOf(args[1], lang)
			path, ok = literalOf(args[2], lang)
		}
	} else {
		path, ok = argLiteral(args, 0, lang)
		mode, _ = argLiteral(args, 1, lang)
		for _, arg := range args[min(1, len(args)):] {
			if k, v, found := strings.Cut(arg, "="); found && strings.TrimSpace(k) == "mode" {
				mode, _ = literalOf(v, lang)
			}
		}
	}
	if !strings.ContainsAny(mode, "wax+>") {
		return
	}
	if !ok {
		a.add(High, "interpreter-write", sentence("The %s code writes a file at a path the analysis cannot see", lang), c.text, f.src)
		return
	}
	a.judge(c.sc, c.text, literal(path), pathOp{effect: effOverwrite})
}

// codeExec analyses a command run from inline code: a string literal is a
// shell command line, a list of literals an argv.
func (a *analyzer) codeExec(c *call, lang string, f field, name string, args []string) {
	if len(args) == 0 {
		return
	}
	// Calls that take a program and its argv rather than a command line.
	argvOnly := slices.Contains([]string{"os.execv", "os.execvp", "os.execl", "os.execlp", "os.spawnv", "os.spawnl", "execFile", "execFileSync", "spawn", "spawnSync"}, name)
	var argv []string
	if s, ok := literalOf(args[0], lang); ok {
		argv = []string{s}
		rest, restOK := allLiterals(args[1:], lang)
		if list, isList := listOf(argLiteralText(args, 1), lang); isList {
			if strings.HasPrefix(name, "os.") {
				argv = list // os.execvp(file, argv): argv includes the name
			} else {
				argv = append(argv, list...)
			}
		} else if restOK && len(rest) > 0 && (lang == "perl" || lang == "ruby" || argvOnly) {
			argv = append(argv, rest...)
		} else if !restOK && (lang == "perl" || lang == "ruby" || argvOnly) {
			// system("rm", "-rf", $ENV{HOME}."/x"): an argv whose computed
			// words are judged as computed, as "$x" would be in the shell.
			a.runArgv(c, lang, args)
			return
		}
	} else if list, ok := listOf(args[0], lang); ok && len(list) > 0 {
		argv = list
	} else {
		a.add(High, "interpreter-exec", sentence("The %s code runs commands (%s) the analysis cannot see", lang, name), c.text, f.src)
		return
	}
	if len(argv) == 1 && !argvOnly {
		a.subshell(c, literal(argv[0]), nil)
		return
	}
	fields := make([]field, len(argv))
	for i, s := range argv {
		fields[i] = literal(s)
	}
	ic := c.with(fields)
	ic.io, ic.rd = nil, &redirs{}
	a.run(ic)
}

// awkPipes finds awk's `print … | "cmd"`, `"cmd" | getline` and
// `print … > "file"`.
func (a *analyzer) awkPipes(c *call, text string) {
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '|':
			rest := strings.TrimLeft(text[i+1:], " \t")
			if s, _, ok := leadingLiteral(rest); ok {
				a.subshell(c, literal(s), nil)
			}
		case '>':
			rest := strings.TrimLeft(strings.TrimPrefix(text[i+1:], ">"), " \t")
			if s, _, ok := leadingLiteral(rest); ok {
				a.judge(c.sc, c.text, literal(s), pathOp{effect: effOverwrite})
			}
		case '"':
			if s, n, ok := leadingLiteral(text[i:]); ok {
				after := strings.TrimLeft(text[i+n:], " \t")
				if strings.HasPrefix(after, "|") && strings.HasPrefix(strings.TrimLeft(after[1:], " \t"), "getline") {
					a.subshell(c, literal(s), nil)
				}
				i += n - 1
			}
		}
	}
}

// runArgv runs an argv given as code arguments: literals as they are,
// anything else as a word only known at run time.
func (a *analyzer) runArgv(c *call, lang string, args []string) {
	fields := make([]field, 0, len(args))
	for _, arg := range args {
		if s, ok := literalOf(arg, lang); ok {
			fields = append(fields, literal(s))
			continue
		}
		fields = append(fields, field{src: strings.TrimSpace(arg), code: "${" + unknownVar + "}", dynamic: true, lead: true, globAt: -1, expEnd: 0})
	}
	ic := c.with(fields)
	ic.io, ic.rd = nil, &redirs{}
	a.run(ic)
}
