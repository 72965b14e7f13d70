package safety

import "strings"

// Archive and compression tools that delete the files they pack: gzip f
// leaves only f.gz, tar --remove-files, zip -m, 7z -sdel and rar m delete
// their sources. A model steered by hostile content can use them to make
// files disappear from the home directory without any rm; the sources are
// judged as moved away (medium in the workspace, high outside, critical for
// a home directory or a folder directly in it); a compressor's, which are
// files, as deleted files.

// compressor handles gzip, bzip2, xz and friends, which replace each file
// with its compressed form (or the reverse) unless told to keep it; zstd
// and lz4 keep it unless given --rm.
func (a *analyzer) compressor(c *call, name string) {
	p := parseOpts(c.args[1:], optSpec{short: "SbTMo", long: []string{"suffix", "threads", "memlimit", "memory", "format", "output"}})
	switch name {
	case "zstd", "unzstd", "zstdmt", "lz4", "unlz4":
		if !p.has("--rm") || p.has("-c", "--stdout", "-t", "--test", "-l", "--list", "-o") {
			return
		}
	default:
		if p.has("-c", "--stdout", "--to-stdout", "-k", "--keep", "-t", "--test", "-l", "--list") {
			return
		}
	}
	// They take files, not directories, unless -r.
	a.archiveRemoves(c, name, p.operands, name, p.has("-r", "--recursive"))
}

// zip -m (--move) deletes the files it adds; the first operand is the
// archive.
func (a *analyzer) zip(c *call) {
	p := parseOpts(c.args[1:], optSpec{short: "bntPOZsx", long: []string{"temp-path", "suffixes", "from-date", "password", "output-file", "compression-method", "split-size", "exclude", "include"}})
	if !p.has("-m", "--move") || len(p.operands) < 2 {
		return
	}
	a.archiveRemoves(c, "zip -m", p.operands[1:], "zip", true)
}

// sevenZip: 7z a -sdel ARCHIVE FILES deletes the files after adding them;
// rar m (move) and rar -df do the same.
func (a *analyzer) sevenZip(c *call, name string) {
	var ops []field
	del := false
	for _, f := range c.args[1:] {
		v := strings.ToLower(f.value)
		switch {
		case f.static() && (v == "-sdel" || v == "-df"):
			del = true
		case f.static() && strings.HasPrefix(v, "-"):
		default:
			ops = append(ops, f)
		}
	}
	if len(ops) > 0 && name == "rar" && (ops[0].value == "m" || ops[0].value == "mf") {
		del = true
	}
	if !del || len(ops) < 3 {
		return
	}
	a.archiveRemoves(c, name, ops[2:], name, true)
}

// tarRemoves handles tar --remove-files, which deletes what it archived.
func (a *analyzer) tarRemoves(c *call, operands []field) {
	for _, f := range c.args[1:] {
		if f.static() && f.value == "--remove-files" {
			a.archiveRemoves(c, "tar --remove-files", operands, "tar", true)
			return
		}
	}
}

func (a *analyzer) archiveRemoves(c *call, how string, sources []field, word string, trees bool) {
	if len(sources) == 0 {
		return
	}
	a.add(Medium, "archive-removes-sources", sentence("%s deletes the files it packs (%s)", how, strings.Join(srcs(sources), " ")), c.text, word)
	for _, s := range sources {
		op := pathOp{effect: effMove, recursive: true}
		if !trees {
			op = pathOp{effect: effDelete}
		}
		a.judge(c.sc, c.text, s, op)
	}
}
