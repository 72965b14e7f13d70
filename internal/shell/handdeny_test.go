package shell

import (
	"slices"
	"strings"
	"testing"
)

// TestHandDenyListsDoNotRepeat: a name handDenyExact lists is not caught
// by a prefix or suffix as well (it would be written twice into the
// driver's pattern), but for BASH_ENV, listed to be told where the other
// BASH_ names are dropped silently. What the lists leave out is still
// denied, told or silent as before.
func TestHandDenyListsDoNotRepeat(t *testing.T) {
	for _, n := range handDenyExact {
		if n == "BASH_ENV" {
			continue
		}
		for _, p := range slices.Concat(handSilentPrefix, handDenyPrefix) {
			if strings.HasPrefix(n, p) {
				t.Errorf("%s is listed and caught by the prefix %s", n, p)
			}
		}
		for _, p := range handDenySuffix {
			if strings.HasSuffix(n, p) {
				t.Errorf("%s is listed and caught by the suffix %s", n, p)
			}
		}
	}
	for name, want := range map[string][2]bool{
		"PATH": {true, false}, "CDPATH": {true, false}, "PROMPT_COMMAND": {true, false},
		"SUDO_ASKPASS": {true, false}, "RUSTC_WRAPPER": {true, false}, "MAVEN_OPTS": {true, false},
		"BASH_ENV": {true, false}, "BASH_VERSINFO": {true, true}, "__olly_d": {true, true},
		"HOME": {true, false}, "FOO": {false, false},
	} {
		if deny, silent := handDeny(name); deny != want[0] || silent != want[1] {
			t.Errorf("handDeny(%s) = %v, %v, want %v", name, deny, silent, want)
		}
	}
}
