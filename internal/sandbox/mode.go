package sandbox

// The one place that knows how this machine keeps .git read-only when a
// spec's refusals are explained (PlanStart decides it for a start).

// Explain is the package's Explain for spec as this sandbox runs it: a
// git-folder refusal (the folder holding a .git cannot change its own
// entries) exists only with per-entry rules, and with mounts a write
// into .git fails with "Read-only file system" (or "Device or resource
// busy" for renaming it).
func (b *Sandbox) Explain(spec Spec, cwd, home, output string) []Refusal {
	return explain(spec, b.gitMode(), cwd, home, output)
}

// gitMode is Status().Git, or "" when nothing confines commands.
func (b *Sandbox) gitMode() string {
	st := b.Status()
	if !st.Active() {
		return ""
	}
	return st.Git
}
