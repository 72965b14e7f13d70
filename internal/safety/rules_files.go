package safety

import (
	"path/filepath"
	"strings"
)

// rm: recursive or forced deletion is high inside the workspace and
// critical on /, a home, a system tree or the workspace root itself.
func (a *analyzer) rm(c *call) {
	p := parseOpts(c.args[1:], optSpec{})
	op := pathOp{
		effect:    effDelete,
		recursive: p.has("-r", "-R", "--recursive") || p.maybeOpts,
		force:     p.has("-f", "--force") || p.maybeOpts,
	}
	for _, f := range p.operands {
		a.judge(c.sc, c.text, f, op)
	}
}

func (a *analyzer) unlink(c *call) {
	for _, f := range parseOpts(c.args[1:], optSpec{}).operands {
		a.judge(c.sc, c.text, f, pathOp{effect: effDelete})
	}
}

// rmdir only removes empty directories: worth a look outside the workspace,
// nothing more.
func (a *analyzer) rmdir(c *call) {
	for _, f := range parseOpts(c.args[1:], optSpec{}).operands {
		switch p := a.classify(c.sc, f); p.kind {
		case placeWorkspace, placeTemp, placeSink:
		default:
			a.add(Medium, "rmdir-outside-workspace", sentence("Removes the directory %s, outside the workspace", f.src), c.text, f.src)
		}
	}
}

// copyMove: the destination is overwritten; for mv the sources disappear
// from where they were.
func (a *analyzer) copyMove(c *call, move bool) {
	p := parseOpts(c.args[1:], optSpec{short: "tS", long: []string{"target-directory", "suffix"}})
	sources := p.operands
	dest, ok := p.val("-t", "--target-directory")
	if !ok {
		if len(sources) < 2 {
			return
		}
		dest, sources = sources[len(sources)-1], sources[:len(sources)-1]
	}
	if move {
		for _, s := range sources {
			a.judge(c.sc, c.text, s, pathOp{effect: effMove, recursive: true})
		}
	}
	// Into a directory (-t, or a trailing slash): what is written is
	// dir/name for each source, so the reason names the real file.
	if ok || strings.HasSuffix(dest.value, "/") && !dest.dynamic {
		for _, s := range sources {
			if s.static() && s.globAt < 0 {
				in := dest
				in.value = strings.TrimRight(dest.value, "/") + "/" + filepath.Base(s.value)
				a.judge(c.sc, c.text, in, pathOp{effect: effOverwrite})
				continue
			}
			a.judge(c.sc, c.text, dest, pathOp{effect: effOverwrite})
		}
		return
	}
	a.judge(c.sc, c.text, dest, pathOp{effect: effOverwrite})
}

func (a *analyzer) ln(c *call) {
	p := parseOpts(c.args[1:], optSpec{short: "tS", long: []string{"target-directory", "suffix"}})
	op := pathOp{effect: effCreate, link: true}
	if p.has("-f", "--force") {
		op.effect = effOverwrite
	}
	if dir, ok := p.val("-t", "--target-directory"); ok {
		a.judge(c.sc, c.text, dir, pathOp{effect: effCreate})
		return
	}
	if len(p.operands) >= 2 {
		a.judge(c.sc, c.text, p.operands[len(p.operands)-1], op)
	}
}

func (a *analyzer) install(c *call) {
	p := parseOpts(c.args[1:], optSpec{short: "gmotSZ", long: []string{"group", "mode", "owner", "target-directory", "suffix", "context"}})
	switch dir, ok := p.val("-t", "--target-directory"); {
	case p.has("-d", "--directory"):
		for _, f := range p.operands {
			a.judge(c.sc, c.text, f, pathOp{effect: effCreate})
		}
	case ok:
		a.judge(c.sc, c.text, dir, pathOp{effect: effOverwrite})
	case len(p.operands) >= 2:
		a.judge(c.sc, c.text, p.operands[len(p.operands)-1], pathOp{effect: effOverwrite})
	}
}

// tee writes its input to files and passes it on.
func (a *analyzer) tee(c *call) {
	p := parseOpts(c.args[1:], optSpec{})
	op := pathOp{effect: effOverwrite}
	if p.has("-a", "--append") {
		op.effect = effAppend
	}
	for _, f := range p.operands {
		a.judge(c.sc, c.text, f, op)
	}
	if c.io != nil {
		if s, ok := stdinText(c); ok {
			c.io.out = &s
		}
	}
}

// simpleWrites covers commands whose operands are all written.
func (a *analyzer) simpleWrites(c *call, name string) {
	spec, op := optSpec{short: "mZ", long: []string{"mode", "context"}}, pathOp{effect: effCreate}
	switch name {
	case "truncate":
		spec, op = optSpec{short: "sr", long: []string{"size", "reference"}}, pathOp{effect: effOverwrite}
	case "touch":
		// touch changes an existing file's times or creates it: a write.
		spec, op = optSpec{short: "rdt", long: []string{"reference", "date", "time"}}, pathOp{effect: effAppend}
	}
	ops := parseOpts(c.args[1:], spec).operands
	if name == "mknod" && len(ops) > 1 {
		ops = ops[:1]
	}
	for _, f := range ops {
		a.judge(c.sc, c.text, f, op)
	}
}

// dd copies raw bytes; of= on a disk is the classic way to erase one.
func (a *analyzer) dd(c *call) {
	harmless := false
	for _, f := range c.args[1:] {
		if strings.HasPrefix(f.value, "of=") {
			p := a.judge(c.sc, c.text, subField(f, f.value[3:]), pathOp{effect: effOverwrite})
			harmless = p.kind == placeSink
		}
	}
	if !harmless {
		a.add(Medium, "raw-copy", "Copies raw bytes with dd; a wrong of= destroys what it writes to", c.text, c.args[0].src)
	}
}

// shred destroys file contents beyond recovery.
func (a *analyzer) shred(c *call) {
	p := parseOpts(c.args[1:], optSpec{short: "ns", long: []string{"iterations", "size", "random-source"}})
	for _, f := range p.operands {
		switch pl := a.classify(c.sc, f); pl.kind {
		case placeSink:
		case placeDevice, placeSystem:
			a.judgeWrite(c.text, f, pl, pathOp{effect: effOverwrite})
		default:
			a.add(High, "shred", sentence("Destroys the contents of %s beyond recovery", f.src), c.text, f.src)
		}
	}
}

// sed -i edits files in place; without -i it only prints.
func (a *analyzer) sed(c *call) {
	args := c.args[1:]
	inPlace, haveScript := false, false
	var ops []field
	for i := 0; i < len(args); i++ {
		v := args[i].value
		switch {
		case v == "--":
			ops = append(ops, args[i+1:]...)
			i = len(args)
		case v == "--expression" || v == "--file":
			haveScript = true
			i++
		case v == "--line-length":
			i++
		case strings.HasPrefix(v, "--expression=") || strings.HasPrefix(v, "--file="):
			haveScript = true
		case strings.HasPrefix(v, "--in-place"):
			inPlace = true
		case strings.HasPrefix(v, "--"):
		case len(v) > 1 && v[0] == '-' && args[i].static():
		cluster:
			for j := 1; j < len(v); j++ {
				switch v[j] {
				case 'i':
					inPlace = true
					break cluster // the rest is the backup suffix
				case 'e', 'f', 'l':
					haveScript = haveScript || v[j] != 'l'
					if j == len(v)-1 {
						i++
					}
					break cluster
				}
			}
		default:
			ops = append(ops, args[i])
		}
	}
	if !haveScript && len(ops) > 0 {
		ops = ops[1:]
	}
	if inPlace {
		for _, f := range ops {
			a.judge(c.sc, c.text, f, pathOp{effect: effOverwrite})
		}
	}
}

// transfer: rsync and scp write their destination; rsync --delete deletes
// in it, --remove-source-files moves the sources.
func (a *analyzer) transfer(c *call, name string) traits {
	spec := optSpec{short: "cFiJloPSDX"}
	if name == "rsync" {
		spec = optSpec{short: "eBfTM", long: []string{"rsh", "rsync-path", "filter", "exclude-from", "include-from", "files-from", "partial-dir", "temp-dir", "backup-dir", "log-file", "password-file", "exclude", "include"}}
	}
	p := parseOpts(c.args[1:], spec)
	if len(p.operands) < 2 {
		return 0
	}
	dest, sources := p.operands[len(p.operands)-1], p.operands[:len(p.operands)-1]
	remote := false
	for _, f := range p.operands {
		remote = remote || isRemote(f.value)
	}
	if remote {
		a.add(Medium, "network-fetch", sentence("Copies files to or from another machine (%s)", name), c.text, c.args[0].src)
	}
	deletes := false
	for _, fl := range p.flags {
		deletes = deletes || strings.HasPrefix(fl, "--delete")
	}
	if !isRemote(dest.value) {
		if deletes {
			a.judge(c.sc, c.text, treeOf(dest), pathOp{effect: effDelete, recursive: true})
		}
		a.judge(c.sc, c.text, dest, pathOp{effect: effOverwrite})
	}
	if p.has("--remove-source-files") {
		for _, s := range sources {
			if !isRemote(s.value) {
				a.judge(c.sc, c.text, s, pathOp{effect: effMove})
			}
		}
	}
	return 0
}

// isRemote reports whether an scp/rsync operand names another machine
// (host:path, user@host:path, rsync://…).
func isRemote(v string) bool {
	if strings.HasPrefix(v, "rsync://") {
		return true
	}
	i := strings.IndexByte(v, ':')
	return i > 0 && !strings.Contains(v[:i], "/")
}

// formatDisk: formatting, partitioning and wiping disks.
func (a *analyzer) formatDisk(c *call) {
	name := commandName(c.args[0].value)
	args := c.args[1:]
	p := parseOpts(args, optSpec{})
	sub := ""
	if len(p.operands) > 0 {
		sub = strings.ToLower(p.operands[0].value)
	}
	switch name {
	case "fdisk", "sfdisk", "parted", "gdisk", "sgdisk", "cfdisk":
		if p.has("-l", "--list", "-d", "--dump", "-p", "--print", "-s", "--show-size", "-V", "--version") || len(p.operands) == 0 {
			return
		}
	case "wipefs":
		if !p.has("-a", "--all", "-o", "--offset") {
			return
		}
	case "diskutil":
		if !strings.HasPrefix(sub, "erase") && !strings.HasPrefix(sub, "partition") && !strings.HasSuffix(sub, "disk") && sub != "reformat" && sub != "secureerase" {
			return
		}
	case "zpool":
		if sub != "destroy" && sub != "create" && sub != "labelclear" {
			return
		}
	case "cryptsetup":
		if sub != "luksformat" && sub != "erase" && sub != "lukserase" {
			return
		}
	case "format":
		// Windows' format; harmless elsewhere, but never wanted from an agent.
	}
	local := len(p.operands) > 0
	for _, f := range p.operands {
		k := a.classify(c.sc, f).kind
		local = local && (k == placeWorkspace || k == placeTemp)
	}
	sev := Critical
	if local {
		sev = High // an image file in the workspace
	}
	a.add(sev, "format-disk", sentence("Formats, partitions or erases a disk (%s), destroying its data", strings.Join(srcs(p.operands), " ")), c.text, c.args[0].src)
}
