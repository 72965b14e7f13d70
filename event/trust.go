package event

// TypeTrustResolved records a person's answer to a trust prompt (a
// project's MCP server or hook file waiting to be trusted before it runs).
const TypeTrustResolved Type = "trust_resolved"

// TrustResolved records the answer to a trust prompt of the session's
// workspace, so every frontend showing the session (each web tab, an
// editor over RPC) takes the prompt down, as approval_resolved does for
// an approval card. The decision itself is kept by the trust store.
type TrustResolved struct {
	// RequestID is the answered request (get_trust_requests' id).
	RequestID string `json:"requestId"`
	// Kind is "mcp" or "hook"; Name the server's name or the hook file.
	Kind string `json:"kind"`
	Name string `json:"name"`
	// Decision is trust, not_now or never.
	Decision string `json:"decision"`
	// Fingerprint is what the decision holds for: a change of the
	// program asks again.
	Fingerprint string `json:"fingerprint"`
}

// EventType implements Payload.
func (TrustResolved) EventType() Type { return TypeTrustResolved }
