package webhook

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"
)

// ErrNotAllowed: a callback URL or address that WEBHOOK_ALLOWED_HOSTS does not allow.
var ErrNotAllowed = errors.New("callback not allowed")

// AllowList is WEBHOOK_ALLOWED_HOSTS: the hosts callbacks may go to. Its entries are
// host names ("hooks.example.com"), subdomains ("*.example.com"), addresses and
// networks ("127.0.0.1", "10.0.0.0/8"), and "*" for any host. A host allowed by "*"
// alone must resolve to public addresses: an address of any special-purpose range
// (loopback, private, link-local, documentation, ...) is refused unless the host's
// name or the address's network is listed, and an address of this machine itself
// unless that address or the host's exact name is. The zero value allows nothing.
type AllowList struct {
	any      bool
	names    map[string]bool
	suffixes []string // ".example.com" for "*.example.com"
	nets     []netip.Prefix
}

// ParseAllowList reads a comma-separated list of entries. An address may be written
// in any form a URL's host may take (127.1 is 127.0.0.1).
func ParseAllowList(s string) (AllowList, error) {
	var a AllowList
	for e := range strings.SplitSeq(s, ",") {
		e = strings.ToLower(strings.TrimSpace(e))
		switch {
		case e == "":
		case e == "*":
			a.any = true
		case strings.HasPrefix(e, "*."):
			if !hostName(e[2:]) {
				return AllowList{}, fmt.Errorf("%q: want a host name after the *. of a subdomain entry", e)
			}
			a.suffixes = append(a.suffixes, strings.TrimSuffix(e[1:], "."))
		default:
			if n, err := netip.ParsePrefix(e); err == nil {
				a.nets = append(a.nets, n.Masked())
				continue
			}
			host, ip, err := parseHost(e)
			if err != nil {
				return AllowList{}, fmt.Errorf("%q is not a host name, *.domain, address, network or *: %v", e, err)
			}
			if ip.IsValid() {
				ip = ip.Unmap()
				a.nets = append(a.nets, netip.PrefixFrom(ip, ip.BitLen()))
				continue
			}
			if a.names == nil {
				a.names = map[string]bool{}
			}
			a.names[host] = true
		}
	}
	return a, nil
}

// Empty reports whether the list allows nothing: the server takes no callbacks.
func (a AllowList) Empty() bool {
	return !a.any && len(a.names) == 0 && len(a.suffixes) == 0 && len(a.nets) == 0
}

// named reports whether host is listed by name, itself or as a subdomain.
func (a AllowList) named(host string) bool {
	if a.names[host] {
		return true
	}
	for _, suf := range a.suffixes {
		if strings.HasSuffix(host, suf) {
			return true
		}
	}
	return false
}

// listed reports whether ip is in a listed network.
func (a AllowList) listed(ip netip.Addr) bool {
	for _, n := range a.nets {
		if n.Contains(ip) {
			return true
		}
	}
	return false
}

// exact reports whether ip itself is listed: as an address, or a network of it
// alone.
func (a AllowList) exact(ip netip.Addr) bool {
	for _, n := range a.nets {
		if n.IsSingleIP() && n.Addr() == ip {
			return true
		}
	}
	return false
}

// CheckURL refuses, wrapping ErrNotAllowed with what to do about it, a callback URL
// that is not an absolute http(s) URL to an allowed host, or that cannot be dialed
// (a port outside 1 to 65535, a host that is neither an address nor a domain name).
// It is the check at submission; the address dialed is checked again at each
// delivery.
func (a AllowList) CheckURL(raw string) error {
	t, err := parseTarget(raw)
	switch {
	case err != nil:
		return fmt.Errorf("%w: %w", ErrNotAllowed, err)
	case a.Empty():
		return fmt.Errorf("%w: this server takes no callbacks (its operator has not set WEBHOOK_ALLOWED_HOSTS); poll the job instead", ErrNotAllowed)
	case t.addr.IsValid():
		return a.checkAddr("", t.addr)
	case a.any || a.named(t.host):
		return nil
	}
	return fmt.Errorf("%w: the host %s of callback_url is not in WEBHOOK_ALLOWED_HOSTS; use a host the operator lists there", ErrNotAllowed, t.host)
}

// checkAddr refuses ip, an address of host ("" when the URL named the address), unless
// the list allows it. An address of this machine only when it is listed itself, or
// host by its exact name; another in a special-purpose range when its network is
// listed or host by name or subdomain; a public one when host is allowed or its
// network listed.
func (a AllowList) checkAddr(host string, ip netip.Addr) error {
	ip = ip.WithZone("")
	to := reached(ip) // the IPv4 address of ::ffff:127.0.0.1 and its kin
	shown := ip.String()
	if host != "" {
		shown = host + " (" + shown + ")"
	} else if to != ip {
		shown += " (" + to.String() + ")"
	}
	// Through NAT64 or 6to4 an address of this machine is reached as well.
	v4, _, _ := carried(ip)
	switch {
	case local(to) || v4.IsValid() && local(v4):
		if a.exact(to) || a.exact(ip) || host != "" && a.names[host] {
			return nil
		}
		kind := ""
		if k := special(ip); k != "" {
			kind = " (a " + k + " address)"
		}
		return fmt.Errorf("%w: %s is an address of this machine%s, which only an entry of WEBHOOK_ALLOWED_HOSTS naming that address itself allows (not *, a subdomain entry or a wider network)", ErrNotAllowed, shown, kind)
	case a.listed(ip) || a.listed(to):
		return nil
	}
	if kind := special(ip); kind != "" {
		if a.named(host) {
			return nil
		}
		return fmt.Errorf("%w: %s is a %s address, which WEBHOOK_ALLOWED_HOSTS does not list", ErrNotAllowed, shown, kind)
	}
	if a.any || a.named(host) {
		return nil
	}
	return fmt.Errorf("%w: %s is not in WEBHOOK_ALLOWED_HOSTS", ErrNotAllowed, shown)
}
