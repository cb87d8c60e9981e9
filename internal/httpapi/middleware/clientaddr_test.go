package middleware

import (
	"net/http"
	"net/netip"
	"testing"
)

func TestClientAddr(t *testing.T) {
	trusted := Proxies{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("fd00::/8")}
	tests := []struct {
		name    string
		proxies Proxies
		remote  string
		headers map[string][]string
		want    string
	}{
		{"no proxies: the peer", nil, "198.51.100.1:5000", map[string][]string{"X-Forwarded-For": {"203.0.113.1"}}, "198.51.100.1"},
		{"an untrusted peer's header is ignored", trusted, "198.51.100.1:5000", map[string][]string{"X-Forwarded-For": {"203.0.113.1"}}, "198.51.100.1"},
		{"a trusted peer without a header", trusted, "10.1.2.3:5000", nil, "10.1.2.3"},
		{"a trusted peer's X-Forwarded-For", trusted, "10.1.2.3:5000", map[string][]string{"X-Forwarded-For": {"203.0.113.1"}}, "203.0.113.1"},
		{"the rightmost untrusted hop", trusted, "10.1.2.3:5000", map[string][]string{"X-Forwarded-For": {"192.0.2.66, 203.0.113.1, 10.9.9.9"}}, "203.0.113.1"},
		{"hops over several lines", trusted, "10.1.2.3:5000", map[string][]string{"X-Forwarded-For": {"192.0.2.66", "203.0.113.1"}}, "203.0.113.1"},
		{"every hop trusted: the first", trusted, "10.1.2.3:5000", map[string][]string{"X-Forwarded-For": {"10.0.0.1, 10.0.0.2"}}, "10.0.0.1"},
		{"a hop with a port", trusted, "10.1.2.3:5000", map[string][]string{"X-Forwarded-For": {"203.0.113.1:4711"}}, "203.0.113.1"},
		{"garbage ends the chain at the proxy", trusted, "10.1.2.3:5000", map[string][]string{"X-Forwarded-For": {"192.0.2.66, not-an-ip"}}, "10.1.2.3"},
		{"Forwarded before X-Forwarded-For", trusted, "10.1.2.3:5000", map[string][]string{"Forwarded": {`for=203.0.113.1;proto=https, for="10.0.0.5"`}, "X-Forwarded-For": {"192.0.2.66"}}, "203.0.113.1"},
		{"Forwarded IPv6 with a port", trusted, "[fd00::1]:5000", map[string][]string{"Forwarded": {`For="[2001:db8::7]:4711"`}}, "2001:db8::7"},
		{"Forwarded unknown ends the chain", trusted, "10.1.2.3:5000", map[string][]string{"Forwarded": {`for=203.0.113.1, for=unknown`}}, "10.1.2.3"},
		{"an IPv4-mapped peer", trusted, "[::ffff:10.1.2.3]:5000", map[string][]string{"X-Forwarded-For": {"203.0.113.1"}}, "203.0.113.1"},
		{"a peer that is no address", trusted, "pipe", nil, "pipe"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &http.Request{RemoteAddr: tt.remote, Header: http.Header{}}
			for k, vs := range tt.headers {
				for _, v := range vs {
					r.Header.Add(k, v)
				}
			}
			if got := tt.proxies.ClientAddr(r); got != tt.want {
				t.Errorf("ClientAddr = %q, want %q", got, tt.want)
			}
		})
	}
}
