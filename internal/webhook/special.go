package webhook

import "net/netip"

// kindOf is a special-purpose range and the kind of address it holds.
type kindOf struct {
	net  netip.Prefix
	kind string
}

func ranges(kinds ...string) []kindOf {
	out := make([]kindOf, 0, len(kinds)/2)
	for i := 0; i < len(kinds); i += 2 {
		out = append(out, kindOf{netip.MustParsePrefix(kinds[i]), kinds[i+1]})
	}
	return out
}

// specialV4 and specialV6 are every range of IANA's IPv4 and IPv6 Special-Purpose
// Address Registries (RFC 6890 and those after it), with multicast, the more specific
// first: none holds a host a callback could be meant for. Even the ranges the
// registries call globally reachable are anycast services (AS112, AMT, PCP, TURN),
// never a receiver.
var (
	specialV4 = ranges(
		"0.0.0.0/8", "this-network",
		"10.0.0.0/8", "private",
		"100.64.0.0/10", "shared (carrier-grade NAT)",
		"127.0.0.0/8", "loopback",
		"169.254.0.0/16", "link-local",
		"172.16.0.0/12", "private",
		"192.0.0.0/24", "IETF protocol assignment",
		"192.0.2.0/24", "documentation",
		"192.31.196.0/24", "AS112",
		"192.52.193.0/24", "AMT",
		"192.88.99.0/24", "6to4 relay anycast",
		"192.168.0.0/16", "private",
		"192.175.48.0/24", "AS112",
		"198.18.0.0/15", "benchmarking",
		"198.51.100.0/24", "documentation",
		"203.0.113.0/24", "documentation",
		"224.0.0.0/4", "multicast",
		"255.255.255.255/32", "broadcast",
		"240.0.0.0/4", "reserved",
	)
	specialV6 = ranges(
		"::/128", "unspecified",
		"::1/128", "loopback",
		"64:ff9b:1::/48", "local-use IPv4/IPv6 translation",
		"100::/64", "discard-only",
		"100:0:0:1::/64", "dummy",
		"2001::/32", "Teredo",
		"2001:2::/48", "benchmarking",
		"2001::/23", "IETF protocol assignment",
		"2001:db8::/32", "documentation",
		"2620:4f:8000::/48", "AS112",
		"3fff::/20", "documentation",
		"5f00::/16", "SRv6 SID",
		"fc00::/7", "unique-local",
		"fe80::/10", "link-local",
		"fec0::/10", "site-local",
		"ff00::/8", "multicast",
	)
	// globalV6 is IANA's global unicast space: the rest of IPv6 is reserved.
	globalV6 = netip.MustParsePrefix("2000::/3")
)

// IPv6 forms that carry an IPv4 address. The first three reach that address itself
// (a dual-stack socket, an automatic tunnel, a stateless translator), and are judged,
// listed and dialed as it; through NAT64's well-known prefix and 6to4 a gateway
// reaches it, so they are judged by it but listed as themselves.
var (
	mapped     = netip.MustParsePrefix("::ffff:0:0/96")
	translated = netip.MustParsePrefix("::ffff:0:0:0/96")
	compatible = netip.MustParsePrefix("::/96")
	nat64      = netip.MustParsePrefix("64:ff9b::/96")
	sixToFour  = netip.MustParsePrefix("2002::/16")
)

// carried returns the IPv4 address an IPv6 address carries, how, and whether the
// IPv4 address is what a connection reaches.
func carried(ip netip.Addr) (v4 netip.Addr, how string, same bool) {
	// ::1 and :: are in ::/96, but are IPv6's own loopback and unspecified.
	if !ip.Is6() || ip == netip.IPv6Loopback() || ip == netip.IPv6Unspecified() {
		return netip.Addr{}, "", false
	}
	b := ip.As16()
	last := netip.AddrFrom4([4]byte(b[12:16]))
	switch {
	case mapped.Contains(ip):
		return last, "IPv4-mapped", true
	case translated.Contains(ip):
		return last, "IPv4-translated", true
	case compatible.Contains(ip):
		return last, "IPv4-compatible", true
	case nat64.Contains(ip):
		return last, "through NAT64", false
	case sixToFour.Contains(ip):
		return netip.AddrFrom4([4]byte(b[2:6])), "through 6to4", false
	}
	return netip.Addr{}, "", false
}

// reached is the address a connection to ip reaches: the IPv4 address of a mapped,
// translated or compatible one, else ip.
func reached(ip netip.Addr) netip.Addr {
	if v4, _, same := carried(ip); same {
		return v4
	}
	return ip
}

// special names the kind of an address that is not a public host's, or returns "".
// An IPv6 address that carries an IPv4 address is judged by it.
func special(ip netip.Addr) string {
	ip = ip.WithZone("")
	if v4, how, _ := carried(ip); v4.IsValid() {
		if kind := special(v4); kind != "" {
			return kind + " (" + how + ")"
		}
		return ""
	}
	if ip.Is4() {
		for _, r := range specialV4 {
			if r.net.Contains(ip) {
				return r.kind
			}
		}
		return ""
	}
	for _, r := range specialV6 {
		if r.net.Contains(ip) {
			return r.kind
		}
	}
	if !globalV6.Contains(ip) {
		return "reserved"
	}
	return ""
}
