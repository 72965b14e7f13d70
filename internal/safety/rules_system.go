package safety

import (
	"strings"
)

// kill: a signal to -1 reaches every process the user may signal.
func (a *analyzer) kill(c *call) {
	args := c.args[1:]
	sig := ""
	if len(args) > 0 && args[0].static() {
		switch v := args[0].value; {
		case v == "-l" || v == "-L" || v == "--list" || v == "--table":
			return
		case (v == "-s" || v == "-n" || v == "--signal") && len(args) > 1:
			sig, args = args[1].value, args[2:]
		case v == "--":
		case strings.HasPrefix(v, "-") && len(v) > 1:
			sig, args = v[1:], args[1:]
		}
	}
	if len(args) > 0 && args[0].value == "--" {
		args = args[1:]
	}
	for _, f := range args {
		if f.value == "-1" {
			a.add(Critical, "kill-all-processes", "Sends a signal to every process you own (kill -1), which ends the session and everything in it", c.text, f.src)
			return
		}
		if f.value == "1" {
			// PID 1 is init, or a container's only process.
			a.add(Critical, "kill-all-processes", "Sends a signal to process 1 (init), which can bring down the whole system", c.text, f.src)
			return
		}
	}
	sig = strings.TrimPrefix(strings.ToUpper(sig), "SIG")
	if sig == "9" || sig == "KILL" {
		a.add(High, "kill-force", "Kills processes without letting them clean up (kill -9)", c.text, c.args[0].src)
		return
	}
	a.add(Medium, "kill", "Terminates processes", c.text, c.args[0].src)
}

// killMany: killall and pkill by name; for a whole user it is critical.
func (a *analyzer) killMany(c *call, name string) {
	if name == "killall5" {
		a.add(Critical, "kill-all-processes", "Kills every process on the system (killall5)", c.text, c.args[0].src)
		return
	}
	p := parseOpts(c.args[1:], optSpec{short: "usgGPtUOyoncF", long: []string{"user", "signal", "euid", "uid", "group", "pgroup", "session", "terminal", "parent", "older", "younger", "ns", "nslist"}})
	if p.has("-u", "-U", "--user", "--euid", "--uid") {
		a.add(Critical, "kill-user-processes", sentence("Kills every process of a user (%s -u), including the session running olly", name), c.text, c.args[0].src)
		return
	}
	if name == "pkill" {
		a.add(High, "pkill", "Kills every process whose name matches a pattern (pkill)", c.text, c.args[0].src)
		return
	}
	a.add(High, "killall", sentence("Kills every process with a given name (%s)", name), c.text, c.args[0].src)
}

// service: stopping, disabling or masking services is high; starting and
// restarting medium; status queries are fine.
func (a *analyzer) service(c *call, name string) {
	p := parseOpts(c.args[1:], optSpec{short: "tpHMnos", long: []string{"type", "property", "host", "machine", "lines", "output", "signal", "state", "root", "kill-whom"}})
	ops := p.operands
	verb := ""
	switch name {
	case "service", "rc-service":
		if len(ops) > 1 {
			verb = ops[1].value
		}
	case "sv":
		if len(ops) > 0 {
			verb = ops[0].value
		}
	default: // systemctl, launchctl
		if len(ops) > 0 {
			verb = ops[0].value
		}
	}
	switch strings.ToLower(verb) {
	case "poweroff", "reboot", "halt", "kexec", "suspend", "hibernate", "hybrid-sleep", "soft-reboot":
		a.add(High, "power", sentence("Shuts down, reboots or suspends the machine (%s %s)", name, verb), c.text, c.args[0].src)
	case "stop", "disable", "mask", "kill", "isolate", "emergency", "rescue", "unload", "remove", "bootout", "down", "exit", "force-stop":
		a.add(High, "service-stop", sentence("Stops or disables a system service (%s %s)", name, verb), c.text, c.args[0].src)
	case "start", "restart", "reload", "try-restart", "reload-or-restart", "enable", "unmask", "daemon-reload", "daemon-reexec",
		"edit", "set-property", "set-default", "load", "bootstrap", "kickstart", "up", "once", "link", "revert", "preset":
		a.add(Medium, "service-change", sentence("Changes a system service (%s %s)", name, verb), c.text, c.args[0].src)
	}
}

// firewall: anything but a listing changes what reaches the machine.
func (a *analyzer) firewall(c *call, name string) {
	p := parseOpts(c.args[1:], optSpec{short: "tj", long: []string{"table", "jump", "zone"}})
	first := ""
	if len(p.operands) > 0 {
		first = strings.ToLower(p.operands[0].value)
	}
	readOnly := false
	switch name {
	case "nft":
		readOnly = first == "list" || first == "monitor" || p.has("-c", "--check")
	case "ufw":
		readOnly = first == "status" || first == "show" || first == "app" && len(p.operands) > 1 && p.operands[1].value == "list"
	case "firewall-cmd":
		readOnly = len(p.flags) > 0
		for _, f := range p.flags {
			readOnly = readOnly && (strings.HasPrefix(f, "--list") || strings.HasPrefix(f, "--get") || strings.HasPrefix(f, "--query") || f == "--state" || f == "--zone")
		}
	case "pfctl":
		readOnly = p.has("-s", "-n")
	default: // iptables and friends
		changes := p.has("-A", "-D", "-I", "-R", "-F", "-X", "-P", "-N", "-Z", "-E", "--append", "--delete", "--insert", "--replace", "--flush", "--delete-chain", "--policy", "--new-chain", "--zero", "--rename-chain")
		readOnly = !changes && name != "iptables-restore"
	}
	if !readOnly {
		a.add(High, "firewall-change", sentence("Changes the firewall (%s)", name), c.text, c.args[0].src)
	}
}

func (a *analyzer) power(c *call, name string) {
	args := c.args[1:]
	if name == "shutdown" && len(args) > 0 && args[0].value == "-c" {
		return
	}
	if name == "init" || name == "telinit" {
		if len(args) == 0 || (args[0].value != "0" && args[0].value != "6" && args[0].value != "1" && args[0].value != "S") {
			return
		}
	}
	a.add(High, "power", sentence("Shuts down or reboots the machine (%s)", name), c.text, c.args[0].src)
}

func (a *analyzer) crontab(c *call) {
	p := parseOpts(c.args[1:], optSpec{short: "u"})
	switch {
	case p.has("-r"):
		a.add(High, "crontab-remove", "Deletes all scheduled jobs of the user (crontab -r)", c.text, c.args[0].src)
	case p.has("-l"):
	case p.has("-e") || len(p.operands) > 0:
		a.add(Medium, "crontab-change", "Replaces or edits the user's scheduled jobs", c.text, c.args[0].src)
	}
}

func (a *analyzer) history(c *call) {
	p := parseOpts(c.args[1:], optSpec{short: "d"})
	switch {
	case p.has("-c"):
		a.add(High, "history-clear", "Clears the shell history (history -c)", c.text, c.args[0].src)
	case p.has("-d"):
		a.add(Medium, "history-delete", "Deletes entries from the shell history", c.text, c.args[0].src)
	}
}

// systemConfig: kernel settings, mounts, modules, accounts, boot loader.
func (a *analyzer) systemConfig(c *call, name string) {
	p := parseOpts(c.args[1:], optSpec{short: "otp", long: []string{"types", "options"}})
	switch name {
	case "sysctl":
		writes := p.has("-w", "--write", "-p", "--load", "--system")
		for _, f := range p.operands {
			writes = writes || strings.Contains(f.value, "=")
		}
		if !writes {
			return
		}
	case "mount":
		if len(p.operands) == 0 {
			return // lists mounts
		}
	case "passwd":
		if p.has("-S", "--status") {
			return
		}
	}
	rule := "system-config"
	switch name {
	case "passwd", "useradd", "userdel", "usermod", "groupadd", "groupdel", "chpasswd", "visudo", "adduser", "deluser":
		rule = "account-change"
	}
	a.add(High, rule, sentence("Changes the system's configuration (%s)", name), c.text, c.args[0].src)
}
