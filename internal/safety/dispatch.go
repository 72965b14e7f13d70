package safety

import "strings"

// dispatch runs the rules for one normalised command name. A switch rather
// than a map keeps the table free of package-level state and compiles to a
// binary search.
func (a *analyzer) dispatch(c *call, name string) traits {
	if t, ok := a.dispatchWrapper(c, name); ok {
		return t
	}
	switch fam := family(name); fam {
	case "python", "pypy", "perl", "ruby", "php", "lua", "luajit", "node", "deno", "bun", "awk", "rscript", "osascript":
		if fam == "bun" && len(c.args) > 1 && !strings.HasPrefix(c.args[1].value, "-") {
			return a.packages(c, "bun")
		}
		return a.interpreter(c, fam)
	case "bash", "sh", "zsh", "dash", "ksh", "mksh", "ash", "yash", "posh", "rbash", "fish", "csh", "tcsh":
		return a.shell(c)
	case "pip", "easy_install", "gem":
		return a.packages(c, fam)
	}
	if strings.HasPrefix(name, "mkfs") || strings.HasPrefix(name, "mke2fs") {
		a.formatDisk(c)
		return 0
	}
	return a.dispatchRule(c, name)
}

func (a *analyzer) dispatchWrapper(c *call, name string) (traits, bool) {
	switch name {
	case "sudo", "doas", "pkexec", "run0", "su", "runuser", "sudoedit", "please":
		return a.privileged(c, name), true
	case "env":
		return a.env(c), true
	case "watch":
		return a.watch(c), true
	case "xargs":
		return a.xargs(c), true
	case "find":
		return a.find(c), true
	case "parallel":
		return a.parallel(c), true
	case "eval":
		return a.eval(c), true
	case "source", ".":
		a.source(c)
		return 0, true
	case "trap":
		a.trap(c)
		return 0, true
	case "alias":
		a.alias(c)
		return 0, true
	case "ssh":
		return a.ssh(c), true
	case "screen":
		return a.screen(c), true
	case "tmux":
		return a.tmux(c), true
	case "at", "batch":
		return a.at(c), true
	case "script":
		return a.scriptCmd(c), true
	case "busybox", "toybox":
		if len(c.args) > 1 && !strings.HasPrefix(c.args[1].value, "-") {
			return a.run(c.with(c.args[1:])), true
		}
		return 0, true
	}
	if spec, ok := wrapperSpec(name); ok {
		return a.wrapped(c, spec), true
	}
	return 0, false
}

func (a *analyzer) dispatchRule(c *call, name string) traits {
	switch name {
	// The shell's own state.
	case "cd", "pushd", "popd":
		a.cd(c)
	case "read", "mapfile", "readarray", "unset", "set", "shift", "getopts":
		if name == "set" && len(c.args) == 1 {
			a.printsEnv(c.text, name)
		}
		a.shellVars(c, name)
	case "printenv":
		a.printsEnv(c.text, name)
	case "compgen":
		for _, f := range c.args[1:] {
			if f.value == "-e" || f.value == "-v" || f.value == "-A" {
				a.printsEnv(c.text, name)
				break
			}
		}
	case "echo", "printf":
		a.echo(c, name)
	case "cat":
		a.cat(c)
	case "base64":
		a.base64(c)

	// Files.
	case "rm":
		a.rm(c)
	case "rimraf":
		// rimraf (often run through npx) is rm -rf.
		a.rm(c.with(append([]field{c.args[0], literal("-rf")}, c.args[1:]...)))
	case "tar", "bsdtar", "gtar", "unzip":
		a.extract(c, strings.TrimPrefix(strings.TrimPrefix(name, "bsd"), "g"))
	case "gzip", "gunzip", "pigz", "unpigz", "bzip2", "bunzip2", "pbzip2", "xz", "unxz", "lzma", "unlzma", "lzip",
		"compress", "uncompress", "zstd", "unzstd", "zstdmt", "lz4", "unlz4":
		a.compressor(c, name)
	case "zip":
		a.zip(c)
	case "7z", "7za", "7zr", "rar":
		a.sevenZip(c, name)
	case "unlink":
		a.unlink(c)
	case "rmdir":
		a.rmdir(c)
	case "mv":
		a.copyMove(c, true)
	case "cp":
		a.copyMove(c, false)
	case "ln":
		a.ln(c)
	case "install":
		a.install(c)
	case "tee":
		a.tee(c)
	case "truncate", "touch", "mkdir", "mkfifo", "mknod":
		a.simpleWrites(c, name)
	case "dd":
		a.dd(c)
	case "shred", "wipe", "srm":
		a.shred(c)
	case "sed", "gsed":
		a.sed(c)
	case "chmod":
		a.chmod(c)
	case "chown", "chgrp":
		a.chown(c)
	case "chattr", "setfacl":
		a.attrs(c, name)
	case "rsync", "scp":
		return a.transfer(c, name)
	case "mke2fs", "mkswap", "wipefs", "fdisk", "sfdisk", "cfdisk", "gdisk", "sgdisk", "parted", "blkdiscard",
		"mkdosfs", "mkntfs", "newfs", "diskutil", "format", "zpool", "cryptsetup", "pvcreate", "lvremove", "vgremove":
		a.formatDisk(c)

	// Network.
	case "curl", "wget", "wget2", "aria2c", "axel", "fetch", "http", "https", "xh", "httpie", "lwp-request", "lwp-download", "get":
		return a.fetch(c, name)
	case "nc", "ncat", "netcat", "socat", "telnet":
		a.add(Medium, "network-fetch", sentence("Opens a network connection (%s)", name), c.text, c.args[0].src)
		return tFetch

	// Version control.
	case "git":
		a.git(c)

	// Processes and the system.
	case "kill":
		a.kill(c)
	case "killall", "pkill", "killall5", "skill", "slay":
		a.killMany(c, name)
	case "systemctl", "service", "launchctl", "rc-service", "sv":
		a.service(c, name)
	case "iptables", "ip6tables", "iptables-legacy", "ip6tables-legacy", "iptables-restore", "nft", "ufw", "firewall-cmd", "pfctl":
		a.firewall(c, name)
	case "shutdown", "reboot", "halt", "poweroff", "init", "telinit":
		a.power(c, name)
	case "crontab":
		a.crontab(c)
	case "history":
		a.history(c)
	case "sysctl", "mount", "umount", "swapoff", "modprobe", "rmmod", "insmod", "passwd", "useradd", "userdel",
		"usermod", "groupadd", "groupdel", "chpasswd", "visudo", "adduser", "deluser", "setenforce", "grub-install", "update-grub", "efibootmgr":
		a.systemConfig(c, name)

	// Packages, publishing, containers, clusters.
	case "apt", "apt-get", "aptitude", "dpkg", "yum", "dnf", "microdnf", "zypper", "tdnf", "pacman", "yay", "paru", "apk",
		"brew", "port", "snap", "flatpak", "nix-env", "npm", "pnpm", "yarn", "npx", "pnpx", "bunx", "go", "cargo",
		"composer", "uv", "uvx", "poetry", "pipx", "conda", "mamba", "micromamba", "twine", "dotnet", "rustup":
		return a.packages(c, name)
	case "docker", "podman", "nerdctl":
		a.container(c)
	case "kubectl", "helm", "terraform", "tofu", "pulumi":
		a.cluster(c, name)
	case "make", "gmake", "ninja":
		a.make(c)
	}
	return 0
}
