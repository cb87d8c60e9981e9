package webhook_test

import (
	"errors"
	"testing"

	"github.com/inferd/inferd/internal/webhook"
)

func TestCheckURL(t *testing.T) {
	tests := []struct {
		name, allow, url string
		ok               bool
	}{
		{"unset refuses all", "", "https://hooks.example.com/x", false},
		{"listed name", "hooks.example.com", "https://hooks.example.com/x", true},
		{"name case and dot", "hooks.example.com", "https://HOOKS.example.com./x", true},
		{"other name", "hooks.example.com", "https://evil.example.com/x", false},
		{"subdomain", "*.example.com", "https://a.b.example.com/x", true},
		{"subdomain not the domain", "*.example.com", "https://example.com/x", false},
		{"any name", "*", "https://anything.example.org/x", true},
		{"any, public address", "*", "http://203.0.113.7:8080/x", true},
		{"any, loopback", "*", "http://127.0.0.1:8080/x", false},
		{"any, loopback v6", "*", "http://[::1]:8080/x", false},
		{"any, private", "*", "http://10.1.2.3/x", false},
		{"any, link-local metadata", "*", "http://169.254.169.254/latest/meta-data", false},
		{"any, unspecified", "*", "http://0.0.0.0:8080/x", false},
		{"any, mapped loopback", "*", "http://[::ffff:127.0.0.1]/x", false},
		{"any, NAT64 of private", "*", "http://[64:ff9b::10.0.0.1]/x", false},
		{"any, NAT64 of public", "*", "http://[64:ff9b::203.0.113.7]/x", true},
		{"any, 6to4 of loopback", "*", "http://[2002:7f00:1::]/x", false},
		{"any, carrier-grade NAT", "*", "http://100.64.0.1/x", false},
		{"any, benchmarking", "*", "http://198.18.0.1/x", false},
		{"any, broadcast", "*", "http://255.255.255.255/x", false},
		{"any, public v6", "*", "http://[2001:4860:4860::8888]/x", true},
		{"loopback not listed", "hooks.example.com", "http://127.0.0.1:9/x", false},
		{"loopback listed", "127.0.0.1", "http://127.0.0.1:9/x", true},
		{"private network listed", "10.0.0.0/8", "http://10.1.2.3/x", true},
		{"scheme", "*", "ftp://hooks.example.com/x", false},
		{"relative", "*", "/x", false},
		{"credentials", "*", "https://user:pw@hooks.example.com/x", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := webhook.ParseAllowList(tt.allow)
			if err != nil {
				t.Fatal(err)
			}
			err = a.CheckURL(tt.url)
			if (err == nil) != tt.ok {
				t.Fatalf("CheckURL(%q) under %q = %v, want ok %v", tt.url, tt.allow, err, tt.ok)
			}
			if err != nil && !errors.Is(err, webhook.ErrNotAllowed) {
				t.Errorf("error %v is not ErrNotAllowed", err)
			}
		})
	}
}

func TestParseAllowList(t *testing.T) {
	tests := []struct {
		name, in string
		ok       bool
	}{
		{"mixed", "hooks.example.com, *.example.org,10.0.0.0/8, 127.0.0.1,*", true},
		{"bad name", "hooks example", false},
		{"bad wildcard", "*.", false},
		{"url", "https://hooks.example.com", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := webhook.ParseAllowList(tt.in); (err == nil) != tt.ok {
				t.Errorf("ParseAllowList(%q) = %v, want ok %v", tt.in, err, tt.ok)
			}
		})
	}
}
