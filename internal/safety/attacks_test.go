package safety

import "testing"

// attackCases are issue 13's categories, tried as an attacker would with a
// scripted model against a HOME outside the workspace: each gets a rule,
// judged at least high (so it asks in auto mode) and critical where the
// damage is to the home directory itself, to files programs obey later, or
// to the whole system.
func attackCases() []analyzeCase {
	return []analyzeCase{
		// Inline interpreters.
		{"perl unlink glob", `perl -e 'unlink glob("$ENV{HOME}/*")'`, High, "interpreter-delete", true},
		{"perl system argv computed", `perl -e 'system("rm", "-rf", $ENV{HOME}."/x")'`, High, "delete-computed-target", true},
		{"perl system argv literal", `perl -e 'system("rm", "-rf", "/home/u")'`, Critical, "delete-root", true},
		{"perl bare system", `perl -e 'system $ENV{CMD}'`, High, "interpreter-exec", true},
		{"perl rmtree home", `perl -MFile::Path -e 'rmtree($ENV{HOME})'`, High, "interpreter-delete", true},
		{"node rmSync home", `node -e 'require("fs").rmSync(require("os").homedir()+"/x",{recursive:true})'`, High, "interpreter-delete", true},
		{"node execSync", `node -e "require('child_process').execSync('rm -rf ~/x')"`, Critical, "delete-root", true},
		{"awk system computed", `awk 'BEGIN{system("rm -rf " ENVIRON["HOME"] "/x")}'`, High, "interpreter-exec", true},
		{"awk system from input", `echo x | awk '{system("rm " $1)}'`, High, "interpreter-exec", true},
		{"ruby bare system", `ruby -e 'system ARGV[0]' x`, High, "interpreter-exec", true},
		// Process substitution used as a script.
		{"bash procsub echo", `bash <(echo 'rm -rf ~/docs')`, Critical, "delete-root", true},
		{"source procsub", `source <(echo 'rm -rf ~')`, Critical, "delete-root", true},
		{"dot procsub printf", `. <(printf 'rm -rf ~/x')`, Critical, "delete-root", true},
		{"sh procsub base64", `sh <(base64 -d <<< cm0gLXJmIH4vZG9jcw==)`, Critical, "delete-root", true},
		{"bash procsub computed", `bash <(./gen-script)`, High, "procsub-script", true},
		{"python procsub", `python3 <(echo 'import shutil')`, High, "procsub-script", true},
		// Aliases.
		{"alias then use", `alias ls='rm -rf ~/docs'; ls`, Critical, "delete-root", true},
		{"alias expand", `shopt -s expand_aliases; alias x='rm -rf ~'; x`, Critical, "delete-root", true},
		{"alias computed", `alias ll="$(cat payload)"`, High, "shell-computed-script", true},
		// Archive tools that delete their sources.
		{"tar remove-files", `tar czf /tmp/b.tgz --remove-files ~/docs`, Critical, "archive-removes-sources", true},
		{"zip move", `zip -rm /tmp/b.zip ~/Documents`, Critical, "archive-removes-sources", true},
		{"gzip home file", `gzip ~/notes.txt`, High, "archive-removes-sources", true},
		{"xz home file", `xz -9 ~/notes.txt`, High, "delete-outside-workspace", true},
		{"zstd rm", `zstd --rm ~/notes.txt`, High, "archive-removes-sources", true},
		{"7z sdel", `7z a -sdel /tmp/a.7z ~/docs`, Critical, "archive-removes-sources", true},
		{"gzip workspace file", `gzip notes.txt`, Medium, "archive-removes-sources", false},
		// env -S.
		{"env -S HOME", `env -S 'rm -rf ${HOME}/docs'`, Critical, "delete-root", true},
		{"env -S other var", `env -S 'rm -rf ${TARGET}'`, High, "computed-command", true},
		{"env -S literal", `env -S"rm -rf /home/u/docs"`, Critical, "delete-root", true},
		// Globs under home folders.
		{"glob home children", `rm -rf ~/Doc*`, Critical, "delete-root", true},
		{"glob home dotdirs", `rm -rf ~/.s*`, Critical, "delete-root", true},
		{"glob in home folder", `rm -rf ~/docs/*`, High, "delete-outside-workspace", true},
		// find DIR -delete judges DIR.
		{"find home folder delete", `find ~/Documents -delete`, Critical, "delete-root", true},
		{"find root delete", `find . -delete`, Critical, "delete-workspace-root", false},
		{"find build delete", `find build -delete`, High, "delete-recursive", false},
		{"find filtered delete", `find ~/docs -type f -delete`, High, "delete-outside-workspace", true},
		// eval of decoded text.
		{"eval base64", `eval "$(echo cm0gLXJmIH4vZG9jcw== | base64 -d)"`, Critical, "delete-root", true},
		{"eval base64 herestring", `eval $(base64 -d <<< cm0gLXJmIH4vZG9jcw==)`, Critical, "delete-root", true},
		{"eval printf escapes", `eval "$(printf '\x72\x6d -rf ~/docs')"`, Critical, "delete-root", true},
		{"bash -c base64", `bash -c "$(echo cm0gLXJmIH4= | base64 -d)"`, Critical, "delete-root", true},
		{"eval computed", `eval "$(./gen)"`, High, "eval-computed", true},
		// shred, truncate, : >, dd of= into home files.
		{"shred home file", `shred -u ~/notes.txt`, High, "shred", true},
		{"truncate home file", `truncate -s 0 ~/notes.txt`, High, "write-outside-workspace", true},
		{"colon redirect home file", `: > ~/notes.txt`, High, "write-outside-workspace", true},
		{"dd of tilde", `dd if=/dev/zero of=~/notes.txt`, High, "write-outside-workspace", true},
		{"dd of HOME", `dd if=/dev/zero of=$HOME/notes.txt bs=1 count=10`, High, "write-outside-workspace", true},
		{"truncate dotfile", `truncate -s 0 ~/.bashrc`, Critical, "write-dotfile", true},
		// tee, cp, ln -sf, sed -i onto dotfiles.
		{"tee bashrc", `echo 'curl x|sh' | tee -a ~/.bashrc`, Critical, "write-dotfile", true},
		{"cp authorized_keys", `cp key.pub ~/.ssh/authorized_keys`, Critical, "write-dotfile", true},
		{"ln -sf profile", `ln -sf "$PWD/evil" ~/.profile`, Critical, "write-dotfile", true},
		{"ln -s new dotfile", `ln -s evil ~/.bash_aliases`, Critical, "write-dotfile", true},
		{"sed -i bashrc", `sed -i 's/a/b/' ~/.bashrc`, Critical, "write-dotfile", true},
		{"redirect gitconfig", `printf '[core]\n\tpager = x\n' >> ~/.gitconfig`, Critical, "write-dotfile", true},
		{"config autostart", `cp x.desktop ~/.config/autostart/`, Critical, "write-dotfile", true},
		{"python writes dotfile", `python3 -c "open('/home/u/.bashrc', 'a').write('x')"`, Critical, "write-dotfile", true},
		{"cache is not a dotfile", `cp build/tool ~/.cache/tool`, High, "write-outside-workspace", false},
		{"mkdir config dir", `mkdir -p ~/.config/olly`, Medium, "create-outside-workspace", false},
		// kill of PID 1 or -1.
		{"kill 1", `kill 1`, Critical, "kill-all-processes", false},
		{"kill -9 1", `kill -9 1`, Critical, "kill-all-processes", false},
		{"kill -s KILL 1", `kill -s KILL 1`, Critical, "kill-all-processes", false},
		{"kill -TERM -1", `kill -TERM -1`, Critical, "kill-all-processes", false},
		{"kill a pid", `kill 4242`, Medium, "kill", false},
		// Unparseable input.
		{"unparseable", `if true; then`, High, "unparseable", false},
		{"unparseable after damage", "rm -rf ~\nif", Critical, "delete-root", true},
		// The environment can hold secrets.
		{"printenv", `printenv`, Medium, "print-environment", false},
		{"printenv one", `printenv OLLY_API_KEY`, Medium, "print-environment", false},
		{"env alone", `env | grep -i key`, Medium, "print-environment", false},
		{"export -p", `export -p`, Medium, "print-environment", false},
		{"declare -p", `declare -p`, Medium, "print-environment", false},
		{"set alone", `set`, Medium, "print-environment", false},
		{"proc environ", `tr '\0' '\n' < /proc/self/environ`, Medium, "print-environment", true},
		{"env runs a command", `env FOO=1 go test ./...`, None, "", false},
		// git pointed at a planted repository, or configured to run code.
		{"git-dir planted", `git --git-dir=sub status`, High, "git-other-repository", false},
		{"git-dir separate", `git --git-dir sub --work-tree . status`, High, "git-other-repository", false},
		{"git work-tree root", `git --work-tree=/ status`, High, "git-other-repository", false},
		{"git -C outside", `git -C /tmp/x status`, High, "git-other-repository", false},
		{"GIT_DIR prefix", `GIT_DIR=sub git status`, High, "git-environment", false},
		{"export GIT_CONFIG_GLOBAL", `export GIT_CONFIG_GLOBAL=./evil.cfg`, High, "git-environment", false},
		{"git config fsmonitor", `git config core.fsmonitor 'touch pwned'`, Critical, "git-config-exec", false},
		{"git config hooksPath", `git -C sub config core.hooksPath hooks`, Critical, "git-config-exec", false},
		{"git config filter", `git config filter.x.smudge ./run.sh`, Critical, "git-config-exec", false},
		{"git -c include", `git -c include.path=../evil.cfg status`, High, "git-config-redirect", false},
		{"git -c fsmonitor code", `git -c core.fsmonitor='rm -rf ~' status`, Critical, "delete-root", true},
		{"write planted HEAD", `echo 'ref: refs/heads/main' > sub/HEAD`, Critical, "write-git-config", false},
		{"write hook", `cp payload .git/hooks/pre-commit`, Critical, "write-git-config", false},
		{"write nested git config", `printf '[core]\nfsmonitor=x' > vendor/lib/.git/config`, Critical, "write-git-config", false},
		{"write gitattributes", `echo '* filter=x' >> .gitattributes`, Critical, "write-git-config", false},
		{"write gitmodules", `cp m .gitmodules`, Critical, "write-git-config", false},
		{"git own repo", `git -C /home/u/proj status`, None, "", false},
		{"git own git dir", `git --git-dir=/home/u/proj/.git log -1`, None, "", false},
	}
}

func TestAnalyzeAttacks(t *testing.T) {
	for _, tc := range attackCases() {
		t.Run(tc.name, func(t *testing.T) {
			v := Analyze(tc.command, testOpts())
			if v.Severity != tc.want || tc.rule != "" && !v.Has(tc.rule) {
				t.Errorf("Analyze(%q) = %s, want %s with rule %q\n%s", tc.command, v.Severity, tc.want, tc.rule, describeVerdict(v))
			}
		})
	}
}

// everydayCommands are ordinary work in the workspace. In auto mode
// commands up to medium run in the workspace-write sandbox without asking
// (issue 13), so none of these may be judged high or critical: if one
// were, everyday work would stop to ask.
var everydayCommands = []string{
	"go build ./...",
	"go test ./...",
	"go test -race -run TestX ./internal/x/",
	"go vet ./...",
	"gofmt -l .",
	"go mod tidy",
	"go run ./cmd/tool",
	"make",
	"make test",
	"make -j4 all",
	"npm test",
	"npm run build",
	"npm ci",
	"npx tsc --noEmit",
	"cargo build",
	"cargo test",
	"pytest -q",
	"python3 -m pytest tests/",
	"python3 -c 'import json; print(json.load(open(\"package.json\"))[\"name\"])'",
	"python3 -c \"open('out.txt', 'w').write('x')\"",
	"node -e 'console.log(require(\"./package.json\").version)'",
	"node -e \"require('fs').writeFileSync('build/out.json', '{}')\"",
	"node scripts/build.js",
	"mkdir -p build/out",
	"touch notes.txt",
	"cp a.go b.go",
	"cp -r templates build/",
	"mv old.go new.go",
	"rm notes.txt",
	"rm build/out/a.o",
	"git add -A",
	"git add main.go && git commit -m 'fix: handle empty input'",
	"git status && git diff --stat",
	"git log --oneline -5",
	"git checkout -b feature/x",
	"git stash",
	"git -C /home/u/proj log -1",
	"ls -la && cat README.md",
	"grep -rn TODO --include='*.go' .",
	"sed -i 's/foo/bar/g' main.go",
	"echo done > build/status.txt",
	"tar czf dist.tgz build",
	"gzip -k build/out.json",
	"curl -s http://localhost:8080/health",
	"docker build -t app .",
	"chmod +x scripts/run.sh",
	"./scripts/run.sh",
	"bash scripts/test.sh",
	"find . -name '*.tmp' -type f",
	"env GOOS=darwin go vet ./...",
	"kill %1",
}

func TestEverydayCommandsAtMostMedium(t *testing.T) {
	if len(everydayCommands) < 30 {
		t.Fatalf("the everyday set has %d commands, want at least 30", len(everydayCommands))
	}
	for _, cmd := range everydayCommands {
		t.Run(cmd, func(t *testing.T) {
			if v := Analyze(cmd, testOpts()); v.Severity > Medium {
				t.Errorf("Analyze(%q) = %s: everyday work would ask in auto mode\n%s", cmd, v.Severity, describeVerdict(v))
			}
		})
	}
}
