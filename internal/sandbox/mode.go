package sandbox

// The one place that knows how this machine keeps .git read-only when a
// spec is planned or its refusals explained: callers pass the spec they
// built and these methods fill in the mode (Spec.Mount) from Status().Git.

// Plan is the package's Plan for spec as this sandbox runs it: where .git
// is kept read-only by mounts (GitMount) the workspace roots are granted
// whole, otherwise the folders holding a protected path are split into
// their entries. This is the allow list Start applies.
func (b *Sandbox) Plan(spec Spec) []Grant {
	return Plan(b.withMode(spec))
}

// Explain is the package's Explain for spec as this sandbox runs it: a
// git-folder refusal (the folder holding a .git cannot change its own
// entries) exists only with per-entry rules, and with mounts a write
// into .git fails with "Read-only file system" (or "Device or resource
// busy" for renaming it).
func (b *Sandbox) Explain(spec Spec, cwd, home, output string) []Refusal {
	return explain(spec, b.gitMode(), cwd, home, output)
}

// withMode returns spec with Mount set when .git is protected by mounts
// here.
func (b *Sandbox) withMode(spec Spec) Spec {
	spec.Mount = b.gitMode() == GitMount
	return spec
}

// gitMode is Status().Git, or "" when nothing confines commands.
func (b *Sandbox) gitMode() string {
	st := b.Status()
	if !st.Active() {
		return ""
	}
	return st.Git
}
