// Package web is olly's way onto the web: web_fetch (a page as Markdown)
// and web_search (a configured search backend). Every connection goes
// through Guard, so a model steered by a hostile page cannot use olly to
// reach the person's own network (SSRF): addresses that are loopback,
// private, link-local, unspecified, multicast or otherwise internal are
// refused unless the person allowed the host (web.allowHosts). The check is
// made on the IP address actually dialled, after resolution, so a name
// that resolves to a public address once and to 127.0.0.1 the next time
// (DNS rebinding) gains nothing.
package web

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"time"
)

// Refusal is the error of a dial to an internal address.
type Refusal struct {
	Host string
	IP   netip.Addr
}

func (r *Refusal) Error() string {
	return fmt.Sprintf("refused: %s resolves to %s, an internal address (loopback, private, link-local or similar); olly does not fetch from the local network unless the person adds the host to web.allowHosts", r.Host, r.IP)
}

// Guard dials only addresses the rules allow.
type Guard struct {
	hosts    map[string]bool // allowed host names and literal addresses, lower case
	prefixes []netip.Prefix  // allowed ranges
	// Resolver looks names up; nil: net.DefaultResolver.
	Resolver *net.Resolver
	dialer   net.Dialer
}

// NewGuard builds a guard from web.allowHosts entries: host names, IP
// addresses or CIDR ranges. A malformed range is an error.
func NewGuard(allow []string) (*Guard, error) {
	g := &Guard{hosts: map[string]bool{}, dialer: net.Dialer{Timeout: 10 * time.Second}}
	for _, a := range allow {
		a = strings.ToLower(strings.TrimSpace(a))
		switch {
		case a == "":
		case strings.Contains(a, "/"):
			p, err := netip.ParsePrefix(a)
			if err != nil {
				return nil, fmt.Errorf("web.allowHosts: %q is not a CIDR range: %v", a, err)
			}
			g.prefixes = append(g.prefixes, p.Masked())
		default:
			g.hosts[strings.Trim(a, "[]")] = true
		}
	}
	return g, nil
}

// internal are the ranges refused besides what netip classifies
// (loopback, private, link-local, unspecified, multicast): carrier-grade
// NAT, "this network", benchmarking, reserved and the IPv6 forms that
// embed an IPv4 address.
var internal = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("240.0.0.0/4"),
	netip.MustParsePrefix("255.255.255.255/32"),
	netip.MustParsePrefix("64:ff9b::/96"),
	netip.MustParsePrefix("64:ff9b:1::/48"),
	netip.MustParsePrefix("2002::/16"),
	netip.MustParsePrefix("fc00::/7"),
}

// Internal reports whether ip is an address web_fetch refuses by default.
func Internal(ip netip.Addr) bool {
	ip = ip.Unmap()
	if !ip.IsValid() || ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsInterfaceLocalMulticast() || ip.IsMulticast() || ip.IsUnspecified() {
		return true
	}
	for _, p := range internal {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// allowed says whether host (as the URL names it) may reach ip.
func (g *Guard) allowed(host string, ip netip.Addr) bool {
	if !Internal(ip) {
		return true
	}
	if g.hosts[strings.ToLower(host)] || g.hosts[ip.Unmap().String()] {
		return true
	}
	for _, p := range g.prefixes {
		if p.Contains(ip.Unmap()) {
			return true
		}
	}
	return false
}

// DialContext resolves addr's host, refuses it unless every address it
// resolves to is allowed, and dials the checked address itself (never the
// name again), so what was checked is what is connected to.
func (g *Guard) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	ips, err := g.resolve(ctx, host)
	if err != nil {
		return nil, err
	}
	for _, ip := range ips {
		if !g.allowed(host, ip) {
			return nil, &Refusal{Host: host, IP: ip}
		}
	}
	var last error
	for _, ip := range ips {
		c, err := g.dialer.DialContext(ctx, network, net.JoinHostPort(ip.String(), port))
		if err == nil {
			return c, nil
		}
		last = err
	}
	return nil, last
}

func (g *Guard) resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	if ip, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		return []netip.Addr{ip}, nil
	}
	r := g.Resolver
	if r == nil {
		r = net.DefaultResolver
	}
	ips, err := r.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return nil, fmt.Errorf("look up %s: %w", host, err)
	}
	if len(ips) == 0 {
		return nil, fmt.Errorf("look up %s: no address", host)
	}
	return ips, nil
}
