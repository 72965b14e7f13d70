package safety

import (
	"slices"
	"strings"
)

// packages applies the install/remove/publish rules of package managers.
func (a *analyzer) packages(c *call, name string) traits {
	p := parseOpts(c.args[1:], optSpec{short: "octCwnp", long: []string{
		"option", "config-file", "target-release", "prefix", "cwd", "dir", "workspace", "filter", "registry",
		"manifest-path", "config", "name", "channel", "directory", "python", "project",
	}})
	var ops []string
	for _, f := range p.operands {
		if !strings.HasPrefix(f.value, "+") { // cargo +nightly
			ops = append(ops, strings.ToLower(f.value))
		}
	}
	sub, sub2 := "", ""
	if len(ops) > 0 {
		sub = ops[0]
	}
	if len(ops) > 1 {
		sub2 = ops[1]
	}
	global := p.has("-g", "--global", "--location=global")
	k := pkgVerb(name, sub, sub2, global, &p)
	verb := strings.TrimSpace(name + " " + sub)
	switch k {
	case pkgInstall:
		a.add(Medium, "package-install", sentence("Installs or updates packages (%s)", verb), c.text, c.args[0].src)
	case pkgRemove:
		a.add(High, "package-remove", sentence("Removes installed packages (%s)", verb), c.text, c.args[0].src)
	case pkgDepRemove:
		a.add(Medium, "dependency-remove", sentence("Removes a dependency from the project (%s)", verb), c.text, c.args[0].src)
	case pkgPublish:
		a.add(High, "publish", sentence("Publishes to a public registry, which cannot be fully undone (%s)", verb), c.text, c.args[0].src)
	case pkgRemoteRun:
		a.add(Medium, "run-remote-package", sentence("Downloads and runs a package (%s)", verb), c.text, c.args[0].src)
		if name == "npx" || name == "pnpx" || name == "bunx" {
			pp := parseOpts(c.args[1:], optSpec{short: "pc", long: []string{"package", "call"}, posix: true})
			if pp.rest < len(c.args)-1 {
				return a.run(c.with(c.args[1+pp.rest:]))
			}
		}
	case pkgInterpreter:
		return a.interpreter(c, name)
	}
	return 0
}

type pkgKind uint8

const (
	pkgNone pkgKind = iota
	pkgInstall
	pkgRemove
	pkgDepRemove
	pkgPublish
	pkgRemoteRun
	pkgInterpreter
)

// pkgVerb classifies a package-manager command line.
func pkgVerb(name, sub, sub2 string, global bool, p *parsedOpts) pkgKind {
	in := func(s string, set ...string) bool { return slices.Contains(set, s) }
	localOrGlobal := func() pkgKind {
		if global {
			return pkgRemove
		}
		return pkgDepRemove
	}
	switch name {
	case "apt", "apt-get", "aptitude":
		switch {
		case in(sub, "remove", "purge", "autoremove", "autopurge"):
			return pkgRemove
		case in(sub, "install", "reinstall", "upgrade", "dist-upgrade", "full-upgrade", "build-dep", "update", "satisfy"):
			return pkgInstall
		}
	case "dpkg":
		switch {
		case p.has("-r", "--remove", "-P", "--purge"):
			return pkgRemove
		case p.has("-i", "--install", "--unpack"):
			return pkgInstall
		}
	case "yum", "dnf", "microdnf", "zypper", "tdnf":
		switch {
		case in(sub, "remove", "erase", "autoremove", "rm"):
			return pkgRemove
		case in(sub, "install", "in", "reinstall", "update", "upgrade", "up", "downgrade", "groupinstall", "localinstall", "dist-upgrade", "dup"):
			return pkgInstall
		}
	case "pacman", "yay", "paru":
		switch {
		case p.has("-R", "--remove"):
			return pkgRemove
		case p.has("-S", "--sync", "-U", "--upgrade") && !p.has("-s", "--search", "-i", "--info", "-l", "--list"):
			return pkgInstall
		case name != "pacman" && len(p.flags) == 0 && sub == "":
			return pkgInstall // bare yay = -Syu
		}
	case "apk":
		return pick(sub, []string{"del"}, []string{"add", "upgrade", "fix"})
	case "brew", "port":
		return pick(sub, []string{"uninstall", "remove", "rm", "untap"}, []string{"install", "reinstall", "upgrade", "tap"})
	case "snap", "flatpak":
		return pick(sub, []string{"remove", "uninstall"}, []string{"install", "refresh", "update"})
	case "nix-env":
		switch {
		case p.has("-e", "--uninstall"):
			return pkgRemove
		case p.has("-i", "--install", "-u", "--upgrade"):
			return pkgInstall
		}
	case "npm":
		switch {
		case in(sub, "install", "i", "add", "ci", "isntall", "in", "update", "up", "upgrade"):
			return pkgInstall
		case in(sub, "uninstall", "remove", "rm", "r", "un", "unlink"):
			return localOrGlobal()
		case in(sub, "publish", "unpublish", "deprecate", "dist-tag"):
			return pkgPublish
		case in(sub, "exec", "x") || sub == "init" && sub2 != "":
			return pkgRemoteRun
		}
	case "pnpm", "bun":
		switch {
		case in(sub, "add", "install", "i", "update", "up", "upgrade"):
			return pkgInstall
		case in(sub, "remove", "rm", "uninstall", "un"):
			return localOrGlobal()
		case sub == "publish":
			return pkgPublish
		case in(sub, "dlx", "x"):
			return pkgRemoteRun
		case name == "bun" && sub != "" && !in(sub, "run", "test", "build", "init", "create", "pm", "link", "outdated", "repl"):
			return pkgInterpreter
		}
	case "yarn":
		switch {
		case sub == "" || in(sub, "install", "add", "upgrade", "up"):
			return pkgInstall
		case sub == "remove":
			return pkgDepRemove
		case sub == "global" && sub2 == "remove":
			return pkgRemove
		case sub == "global" && sub2 == "add":
			return pkgInstall
		case sub == "publish" || sub == "npm" && sub2 == "publish":
			return pkgPublish
		case sub == "dlx":
			return pkgRemoteRun
		}
	case "npx", "pnpx", "bunx", "uvx":
		return pkgRemoteRun
	case "go":
		switch {
		case in(sub, "install", "get"):
			return pkgInstall
		case sub == "run" && strings.Contains(sub2, "@"):
			return pkgRemoteRun
		}
	case "cargo":
		switch {
		case in(sub, "install", "add"):
			return pkgInstall
		case sub == "uninstall":
			return pkgRemove
		case in(sub, "remove", "rm"):
			return pkgDepRemove
		case in(sub, "publish", "yank", "owner"):
			return pkgPublish
		}
	case "gem":
		switch {
		case in(sub, "install", "update"):
			return pkgInstall
		case sub == "uninstall":
			return pkgRemove
		case in(sub, "push", "yank"):
			return pkgPublish
		}
	case "pip", "easy_install":
		return pick(sub, []string{"uninstall"}, []string{"install", "download"})
	case "composer":
		switch {
		case in(sub, "require", "install", "update", "global"):
			return pkgInstall
		case sub == "remove":
			return pkgDepRemove
		}
	case "uv":
		switch {
		case sub == "pip" || sub == "tool":
			if sub == "tool" && sub2 == "run" {
				return pkgRemoteRun
			}
			return pick(sub2, []string{"uninstall"}, []string{"install", "sync", "upgrade"})
		case in(sub, "add", "sync"):
			return pkgInstall
		case sub == "remove":
			return pkgDepRemove
		case sub == "publish":
			return pkgPublish
		}
	case "poetry":
		switch {
		case in(sub, "add", "install", "update"):
			return pkgInstall
		case sub == "remove":
			return pkgDepRemove
		case sub == "publish":
			return pkgPublish
		}
	case "pipx":
		switch {
		case in(sub, "install", "inject", "upgrade", "reinstall", "upgrade-all"):
			return pkgInstall
		case in(sub, "uninstall", "uninstall-all"):
			return pkgRemove
		case sub == "run":
			return pkgRemoteRun
		}
	case "conda", "mamba", "micromamba":
		if sub == "env" {
			sub = sub2
		}
		return pick(sub, []string{"remove", "uninstall"}, []string{"install", "create", "update", "upgrade"})
	case "twine":
		if sub == "upload" {
			return pkgPublish
		}
	case "dotnet":
		switch {
		case sub == "add" || sub == "tool" && sub2 == "install":
			return pkgInstall
		case sub == "tool" && sub2 == "uninstall":
			return pkgRemove
		case sub == "nuget" && sub2 == "push":
			return pkgPublish
		}
	case "rustup":
		switch {
		case in(sub, "uninstall") || sub2 == "uninstall" || sub2 == "remove":
			return pkgRemove
		case in(sub, "install", "update") || sub2 == "install" || sub2 == "add":
			return pkgInstall
		}
	}
	return pkgNone
}

func pick(sub string, remove, install []string) pkgKind {
	switch {
	case slices.Contains(remove, sub):
		return pkgRemove
	case slices.Contains(install, sub):
		return pkgInstall
	}
	return pkgNone
}

// container: running, removing and pruning containers is medium; a
// privileged container or one with the host's root mounted is high.
func (a *analyzer) container(c *call) {
	args := c.args[1:]
	p := parseOpts(args, optSpec{short: "cHl", long: []string{"context", "host", "config", "log-level"}, posix: true})
	if p.rest >= len(args) {
		return
	}
	sub := args[p.rest].value
	rest := args[p.rest+1:]
	sub2 := ""
	if len(rest) > 0 {
		sub2 = rest[0].value
	}
	medium := func(what string) {
		a.add(Medium, "container", sentence("Changes containers or images (%s %s)", commandName(c.args[0].value), what), c.text, c.args[0].src)
	}
	switch sub {
	case "run", "create":
		medium(sub)
		a.containerRun(c, rest)
	case "exec", "rm", "rmi", "stop", "kill", "restart", "start", "pause", "build", "commit", "load", "import", "tag":
		medium(sub)
	case "push":
		a.add(High, "publish", "Pushes an image to a registry", c.text, c.args[0].src)
	case "volume":
		if sub2 == "rm" || sub2 == "prune" || sub2 == "remove" {
			a.add(High, "container-volume-delete", "Deletes container volumes and the data in them", c.text, c.args[0].src)
		}
	case "system", "image", "container", "network", "builder", "compose", "buildx":
		rp := parseOpts(rest, optSpec{})
		if rp.has("--volumes", "-v") && (sub2 == "prune" || sub2 == "down" || sub2 == "rm") {
			a.add(High, "container-volume-delete", "Deletes container volumes and the data in them", c.text, c.args[0].src)
			return
		}
		if slices.Contains([]string{"prune", "rm", "rmi", "down", "up", "run", "stop", "kill", "restart", "create"}, sub2) {
			medium(sub + " " + sub2)
		}
	}
}

func (a *analyzer) containerRun(c *call, args []field) {
	p := parseOpts(args, optSpec{short: "vepwuahlcmi", long: []string{"volume", "mount", "env", "publish", "name", "workdir", "user", "network", "net", "pid", "cap-add", "entrypoint", "label", "env-file", "memory", "cpus", "hostname", "device", "ipc", "uts", "userns", "security-opt"}, posix: true})
	risky := p.has("--privileged")
	for _, o := range p.vals {
		v := o.val.value
		switch o.name {
		case "--pid", "--net", "--network", "--ipc", "--uts", "--userns":
			risky = risky || v == "host"
		case "--cap-add":
			risky = risky || strings.EqualFold(v, "all") || strings.EqualFold(v, "sys_admin")
		case "--device":
			risky = true
		case "-v", "--volume", "--mount":
			src, _, _ := strings.Cut(v, ":")
			if o.name == "--mount" {
				src = mountSource(v)
			}
			if strings.HasPrefix(src, "/") {
				pl := a.classify(c.sc, literal(src))
				risky = risky || pl.kind == placeVital || pl.kind == placeSystem || pl.kind == placeDevice || strings.HasSuffix(src, "docker.sock")
			}
		}
	}
	if risky {
		a.add(High, "container-privileged", "Runs a container with access to the host (privileged, host namespaces, or a system directory mounted)", c.text, c.args[0].src)
	}
}

func mountSource(v string) string {
	for _, kv := range strings.Split(v, ",") {
		k, val, _ := strings.Cut(kv, "=")
		if k == "source" || k == "src" {
			return val
		}
	}
	return ""
}

// cluster: deleting cluster or cloud resources is high, changing them medium.
func (a *analyzer) cluster(c *call, name string) {
	p := parseOpts(c.args[1:], optSpec{short: "nfl", long: []string{"namespace", "filename", "context", "kubeconfig", "selector", "output", "chdir", "var", "var-file", "target", "stack"}})
	sub := ""
	if len(p.operands) > 0 {
		sub = p.operands[0].value
	}
	destroy, change := false, false
	switch name {
	case "kubectl":
		destroy = sub == "delete"
		change = slices.Contains([]string{"apply", "create", "replace", "patch", "scale", "rollout", "drain", "cordon", "uncordon", "edit", "set", "annotate", "label", "taint", "expose", "run", "exec", "cp"}, sub)
	case "helm":
		destroy = sub == "uninstall" || sub == "delete"
		change = slices.Contains([]string{"install", "upgrade", "rollback"}, sub)
	default: // terraform, tofu, pulumi
		destroy = sub == "destroy" || sub == "apply" && p.has("-destroy")
		change = slices.Contains([]string{"apply", "import", "taint", "untaint", "state", "up", "update", "refresh"}, sub)
	}
	switch {
	case destroy:
		a.add(High, "infra-destroy", sentence("Deletes cluster or cloud resources (%s %s)", name, sub), c.text, c.args[0].src)
	case change:
		a.add(Medium, "infra-change", sentence("Changes cluster or cloud resources (%s %s)", name, sub), c.text, c.args[0].src)
	}
}

// make install usually writes outside the workspace (/usr/local).
func (a *analyzer) make(c *call) {
	p := parseOpts(c.args[1:], optSpec{short: "CfIjlWoE", long: []string{"directory", "file", "makefile", "include-dir", "jobs", "load-average", "what-if", "old-file", "eval"}})
	for _, f := range p.operands {
		if !strings.Contains(f.value, "=") && strings.Contains(f.value, "install") {
			a.add(Medium, "make-install", sentence("Runs make %s, which usually writes outside the workspace", f.value), c.text, f.src)
		}
	}
}
