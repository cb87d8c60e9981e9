package apitest

import (
	"bytes"
	"io"
	"net/http"
	"testing"
)

// Transport returns an http.RoundTripper that sends requests through base
// (http.DefaultTransport when nil) and validates every response against the contract
// like Client.Do, failing t on a mismatch. Give it to a client that is not apitest's,
// such as the Go SDK, so its exchanges are checked too.
func Transport(t testing.TB, base http.RoundTripper) http.RoundTripper {
	t.Helper()
	if _, _, err := load(); err != nil {
		t.Fatalf("loading openapi.yaml: %v", err)
	}
	if base == nil {
		base = http.DefaultTransport
	}
	return &validating{t: t, base: base}
}

type validating struct {
	t    testing.TB
	base http.RoundTripper
}

func (v *validating) RoundTrip(req *http.Request) (*http.Response, error) {
	var reqBody []byte
	if req.Body != nil && req.GetBody != nil {
		if rc, err := req.GetBody(); err == nil {
			reqBody, _ = io.ReadAll(rc)
			rc.Close()
		}
	}
	resp, err := v.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	// The caller reads the body again, as if it came off the wire.
	resp.Body = io.NopCloser(bytes.NewReader(body))
	out := &Response{Status: resp.StatusCode, Header: resp.Header, Body: body}
	if err := Validate(req, reqBody, out); err != nil {
		v.t.Errorf("%s %s -> %d does not match openapi.yaml: %v\nbody: %.500s", req.Method, req.URL.Path, out.Status, err, body)
	}
	return resp, nil
}
