package safety

import (
	"fmt"
	"strconv"
	"strings"
)

// roRule is how one read-only program is checked.
type roRule struct {
	noPaths      bool // its arguments are not file names (echo, date)
	patternFirst bool // its first operand is a pattern (grep, rg, jq)
	ownPaths     bool // check looks at the file names itself (find, git)
	// check refuses the options that make the program write, or run
	// another program; it returns why, or "".
	check func(c roChecker, args []string) string
}

// roRuleFor returns the rule of a program on the read-only list.
func roRuleFor(name string) (roRule, bool) {
	switch name {
	case "ls", "cat", "head", "tail", "wc", "stat", "du", "df", "tac", "nl", "od", "hexdump",
		"strings", "md5sum", "sha1sum", "sha224sum", "sha256sum", "sha384sum", "sha512sum", "b2sum",
		"cksum", "sum", "diff", "cmp", "comm", "cut", "column", "fold", "fmt", "expand", "unexpand",
		"rev", "paste", "join", "realpath", "readlink":
		return roRule{}, true
	case "echo", "pwd", "true", "false", ":", "whoami", "id", "groups", "uname", "nproc", "uptime",
		"locale", "type", "which", "seq", "sleep", "basename", "dirname", "tr", "expr",
		"test", "[", "ps", "free":
		return roRule{noPaths: true}, true
	case "printf":
		return roRule{noPaths: true, check: roRefuse(nil, "v")}, true
	case "grep", "egrep", "fgrep":
		return roRule{patternFirst: true}, true
	case "rg":
		return roRule{patternFirst: true, check: roRefuse([]string{"--pre", "--hostname-bin"}, "")}, true
	case "fd", "fdfind":
		return roRule{patternFirst: true, check: roRefuse([]string{"--exec", "--exec-batch"}, "xX")}, true
	case "jq":
		return roRule{patternFirst: true}, true
	case "yq":
		return roRule{patternFirst: true, check: roRefuse([]string{"--inplace"}, "i")}, true
	case "file":
		return roRule{check: roRefuse([]string{"--compile"}, "C")}, true
	case "tree":
		return roRule{check: roRefuse(nil, "oR")}, true
	case "sort":
		return roRule{check: roRefuse([]string{"--output", "--compress-program"}, "o")}, true
	case "uniq", "xxd":
		return roRule{check: roMaxOperands(1)}, true // a second operand is the output file
	case "cd":
		return roRule{check: roCd}, true
	case "command":
		return roRule{noPaths: true, check: roCommand}, true
	case "date":
		return roRule{noPaths: true, check: roDate}, true
	case "hostname":
		return roRule{noPaths: true, check: roHostname}, true
	case "find":
		return roRule{ownPaths: true, check: roFind}, true
	case "git":
		return roRule{ownPaths: true, check: roGit}, true
	case "go":
		return roRule{ownPaths: true, check: roGo}, true
	}
	return roRule{}, false
}

// roRefuse refuses the long options named (also abbreviated, as GNU
// getopt accepts "--out" for "--output") and the short option letters in
// short (also bundled: "-uo").
func roRefuse(long []string, short string) func(roChecker, []string) string {
	return func(_ roChecker, args []string) string {
		for _, a := range args {
			if a == "--" {
				return ""
			}
			if strings.HasPrefix(a, "--") {
				name, _, _ := strings.Cut(a, "=")
				for _, l := range long {
					if len(name) >= 3 && strings.HasPrefix(l, name) {
						return "with " + l + " writes files or runs programs"
					}
				}
				continue
			}
			if strings.HasPrefix(a, "-") && len(a) > 1 && short != "" && strings.ContainsAny(a[1:], short) {
				return fmt.Sprintf("with %s writes files or runs programs", strconv.Quote(a))
			}
		}
		return ""
	}
}

// roMaxOperands refuses more than n operands; n < 0 refuses any argument.
func roMaxOperands(n int) func(roChecker, []string) string {
	return func(_ roChecker, args []string) string {
		if n < 0 {
			if len(args) > 0 {
				return "with arguments runs another program"
			}
			return ""
		}
		if len(roOperands(args)) > n {
			return fmt.Sprintf("with more than %d file operand writes its output to the last one", n)
		}
		return ""
	}
}

// roOperands returns the arguments that are not options.
func roOperands(args []string) []string {
	var out []string
	opts := true
	for _, a := range args {
		switch {
		case opts && a == "--":
			opts = false
		case opts && strings.HasPrefix(a, "-") && a != "-":
		default:
			out = append(out, a)
		}
	}
	return out
}

func roCd(c roChecker, args []string) string {
	ops := roOperands(args)
	if len(ops) == 0 {
		return "without a directory goes to the home directory"
	}
	if ops[0] == "-" {
		return ""
	}
	if !c.inside(ops[0]) {
		return fmt.Sprintf("to %s leaves the workspace", strconv.Quote(ops[0]))
	}
	return ""
}

func roCommand(_ roChecker, args []string) string {
	if len(args) > 0 && (args[0] == "-v" || args[0] == "-V") {
		return ""
	}
	return "runs another program (only command -v and -V are read-only)"
}

func roDate(_ roChecker, args []string) string {
	for _, a := range args {
		switch {
		case strings.HasPrefix(a, "-s") || strings.HasPrefix(a, "--set") || strings.HasPrefix(a, "-f") || strings.HasPrefix(a, "--file"):
			return "with " + strconv.Quote(a) + " sets the clock or reads a file"
		case !strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "+"):
			return "with an operand sets the clock"
		}
	}
	return ""
}

func roHostname(_ roChecker, args []string) string {
	for _, a := range args {
		switch a {
		case "-f", "-s", "-i", "-I", "-d", "-A", "--fqdn", "--long", "--short", "--ip-address", "--all-ip-addresses", "--domain", "--all-fqdns":
		default:
			return "with " + strconv.Quote(a) + " may set the host name"
		}
	}
	return ""
}

// roFind checks find's starting points and refuses the actions that
// delete, write or run programs.
func roFind(c roChecker, args []string) string {
	i := 0
	for i < len(args) && (args[i] == "-H" || args[i] == "-L" || args[i] == "-P" || strings.HasPrefix(args[i], "-O") || args[i] == "-D") {
		if args[i] == "-D" {
			i++
		}
		i++
	}
	for ; i < len(args); i++ {
		a := args[i]
		if strings.HasPrefix(a, "-") || a == "(" || a == "!" || a == ")" {
			break
		}
		if !c.inside(a) {
			return fmt.Sprintf("searches %s, outside the workspace", strconv.Quote(a))
		}
	}
	for _, a := range args[i:] {
		switch a {
		case "-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls":
			return "with " + a + " runs programs, deletes or writes files"
		}
	}
	return ""
}

// roGo allows go version and reading go env.
func roGo(_ roChecker, args []string) string {
	switch {
	case len(args) == 1 && args[0] == "version":
		return ""
	case len(args) > 0 && args[0] == "env":
		for _, a := range args[1:] {
			if a == "-w" || a == "-u" {
				return "env " + a + " changes the Go environment"
			}
		}
		return ""
	}
	return "is read-only only as go version and go env"
}

// roGit allows git's reading subcommands. Global options that run
// programs or rewrite configuration (-c, --exec-path) are refused, and so
// are the options of reading subcommands that write a file, run an
// external diff or pager, or read outside the repository.
func roGit(c roChecker, args []string) string {
	i := 0
	for ; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-C" || a == "--git-dir" || a == "--work-tree":
			if i+1 >= len(args) || !c.ownRepo(args[i+1], a == "--git-dir") {
				return a + " points somewhere other than the workspace's own repository, whose configuration git would obey"
			}
			i++
		case strings.HasPrefix(a, "--git-dir=") || strings.HasPrefix(a, "--work-tree="):
			if name, v, _ := strings.Cut(a, "="); !c.ownRepo(v, name == "--git-dir") {
				return a + " points somewhere other than the workspace's own repository, whose configuration git would obey"
			}
		case a == "--no-pager" || a == "-P" || a == "--no-replace-objects" || a == "--literal-pathspecs" ||
			a == "--glob-pathspecs" || a == "--noglob-pathspecs" || a == "--icase-pathspecs" || a == "--no-optional-locks":
		case strings.HasPrefix(a, "-"):
			return "with the global option " + strconv.Quote(a) + " is not treated as read-only"
		default:
			return roGitSub(c, a, args[i+1:])
		}
	}
	return ""
}

func roGitSub(c roChecker, sub string, rest []string) string {
	for i, a := range rest {
		name, v, hasV := strings.Cut(a, "=")
		switch name {
		case "--output", "--ext-diff", "--no-index", "-O", "--open-files-in-pager", "--exec", "--upload-pack":
			return sub + " " + name + " writes a file, runs a program or reads outside the repository"
		case "--contents":
			if !hasV && i+1 < len(rest) {
				v = rest[i+1]
			}
			if !c.inside(v) {
				return sub + " --contents reads outside the workspace"
			}
		}
	}
	first := ""
	if len(rest) > 0 {
		first = rest[0]
	}
	switch sub {
	case "status", "log", "diff", "show", "blame", "shortlog", "describe", "rev-parse", "ls-files",
		"ls-tree", "cat-file", "grep", "rev-list", "merge-base", "for-each-ref", "count-objects",
		"name-rev", "whatchanged", "show-ref", "show-branch", "var", "version", "check-ignore",
		"check-attr", "diff-tree", "diff-files", "diff-index", "cherry":
		return ""
	case "branch":
		return roGitList(sub, rest, "-d -D --delete -m -M --move -c -C --copy -u --set-upstream-to --unset-upstream --edit-description -f --force -t --track --no-track --create-reflog")
	case "tag":
		return roGitList(sub, rest, "-d --delete -a --annotate -s --sign -u --local-user -f --force -m --message -F --file -e --edit")
	case "remote":
		if len(rest) == 0 || first == "-v" || first == "--verbose" || first == "get-url" {
			return ""
		}
	case "stash", "notes":
		if first == "list" || first == "show" {
			return ""
		}
	case "worktree":
		if first == "list" {
			return ""
		}
	case "submodule":
		if len(rest) == 0 || first == "status" {
			return ""
		}
	case "reflog":
		if len(rest) == 0 || first == "show" || first == "exists" || strings.HasPrefix(first, "-") {
			return ""
		}
	case "config":
		return roGitConfig(rest)
	}
	return "git " + sub + roGitTail(first) + " is not on the read-only list"
}

func roGitTail(first string) string {
	if first == "" || strings.HasPrefix(first, "-") {
		return ""
	}
	return " " + first
}

// roGitList allows git branch or tag when they list: none of the changing
// options, and operands only as the patterns or commits of a listing.
func roGitList(sub string, rest []string, changing string) string {
	listing := false
	for _, a := range rest {
		name, _, _ := strings.Cut(a, "=")
		for _, ch := range strings.Fields(changing) {
			if name == ch {
				return sub + " " + name + " changes the repository"
			}
		}
		switch name {
		case "-l", "--list", "--contains", "--no-contains", "--merged", "--no-merged", "--points-at":
			listing = true
		}
	}
	if len(roOperands(rest)) > 0 && !listing {
		return sub + " with a name creates a " + sub
	}
	return ""
}

func roGitConfig(rest []string) string {
	if len(rest) > 0 && (rest[0] == "get" || rest[0] == "list") {
		return ""
	}
	reads := false
	for _, a := range rest {
		switch a {
		case "--get", "--get-all", "--get-regexp", "--get-urlmatch", "--list", "-l":
			reads = true
		case "--add", "--unset", "--unset-all", "--replace-all", "--rename-section", "--remove-section", "-e", "--edit":
			return "config " + a + " changes the configuration"
		}
	}
	if !reads {
		return "config without --get or --list may change the configuration"
	}
	return ""
}
