package cli

import "github.com/olly-agent/olly/internal/exetrim"

// memoryCheck says whether olly maps its own executable one page at a time
// (internal/exetrim), which keeps its resident memory low, and when it does
// not, why. Either way olly works the same; unarmed, more of its binary stays
// resident (about 10–20 MiB), so this is never a warning.
func memoryCheck() check {
	armed, why := exetrim.Status()
	if armed {
		return check{Area: "memory", Status: checkOK,
			Detail: "olly's executable is mapped one page at a time, and start-up's pages are dropped (OLLY_EXETRIM=0 turns this off)"}
	}
	if why == "" {
		why = "not armed"
	}
	return check{Area: "memory", Status: checkOK,
		Detail: "olly's executable is mapped as usual (" + why + "): it works the same, with more of the binary resident"}
}
