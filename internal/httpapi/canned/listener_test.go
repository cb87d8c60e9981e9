package canned

import (
	"strings"
	"testing"
)

// TestCannedProblem: net/http's own 431 is rewritten as Answer words it, in the /v2
// shape after a request line under Prefix, and a handler's answer passes untouched.
func TestCannedProblem(t *testing.T) {
	answer := func(status int, code, detail string, under bool) (any, string, string) {
		if under {
			return map[string]any{"error": detail, "code": code}, "application/json", "id-oip"
		}
		return map[string]any{"status": status, "code": code, "detail": detail}, "application/problem+json", "id-1"
	}
	raw := []byte("HTTP/1.1 431 Request Header Fields Too Large" + cannedHeaders + "431 Request Header Fields Too Large")
	out := string(cannedProblem(raw, false, answer))
	for _, want := range []string{"HTTP/1.1 431 Request Header Fields Too Large\r\n", "Content-Type: application/problem+json\r\n", "X-Request-Id: id-1\r\n", `"code":"header_too_large"`} {
		if !strings.Contains(out, want) {
			t.Errorf("answer lacks %q:\n%s", want, out)
		}
	}
	if out := string(cannedProblem(raw, true, answer)); !strings.Contains(out, "X-Request-Id: id-oip\r\n") || !strings.Contains(out, "Content-Type: application/json\r\n") {
		t.Errorf("under the prefix, want the other shape:\n%s", out)
	}
	handler := []byte("HTTP/1.1 404 Not Found\r\nContent-Type: application/problem+json\r\n\r\n{}")
	if out := cannedProblem(handler, false, answer); out != nil {
		t.Errorf("a handler's answer was rewritten: %q", out)
	}
	ok := []byte("HTTP/1.1 200 OK" + cannedHeaders)
	if out := cannedProblem(ok, false, answer); out != nil {
		t.Errorf("a 200 was rewritten: %q", out)
	}
}

func TestRequestLineOIP(t *testing.T) {
	tests := []struct {
		line    string
		oip, ok bool
	}{
		{"GET /v2/models/x HTTP/1.1", true, true},
		{"POST /v2 HTTP/1.1", true, true},
		{"GET /v2?x=1 HTTP/1.1", true, true},
		{"GET /v20 HTTP/1.1", false, true},
		{"GET /predict HTTP/1.1", false, true},
		{"\x16\x03\x01 tls", false, false},
	}
	for _, tc := range tests {
		oip, ok := requestLineOIP([]byte(tc.line), "/v2")
		if oip != tc.oip || ok != tc.ok {
			t.Errorf("%q: got %v, %v; want %v, %v", tc.line, oip, ok, tc.oip, tc.ok)
		}
	}
	if oip, _ := requestLineOIP([]byte("GET /v2 HTTP/1.1"), ""); oip {
		t.Error("no prefix: no path is under it")
	}
}
