package apitest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"github.com/inferd/inferd"
)

var (
	loadOnce sync.Once
	contract *openapi3.T
	router   routers.Router
	loadErr  error
)

func load() (*openapi3.T, routers.Router, error) {
	loadOnce.Do(func() {
		openapi3filter.RegisterBodyDecoder("text/html", openapi3filter.PlainBodyDecoder)
		if contract, loadErr = inferd.Contract(); loadErr != nil {
			return
		}
		contract.Servers = nil // match any host: tests listen on random ports
		router, loadErr = gorillamux.NewRouter(contract)
	})
	return contract, router, loadErr
}

// Client sends requests to a server and validates each response.
type Client struct {
	t    testing.TB
	base string
	http *http.Client
}

// New returns a client of the server at base (e.g. an httptest.Server's URL).
func New(t testing.TB, base string) *Client {
	t.Helper()
	if _, _, err := load(); err != nil {
		t.Fatalf("loading openapi.yaml: %v", err)
	}
	return &Client{t: t, base: strings.TrimSuffix(base, "/"), http: &http.Client{}}
}

// Response is a received, validated response.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the body into v, failing the test on error. Numbers decode as
// json.Number when v is an `any`, so precision is kept.
func (r *Response) JSON(t testing.TB, v any) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(r.Body))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("decoding %s: %v", r.Body, err)
	}
}

// Decode decodes JSON text into an `any` with numbers as json.Number, so values can
// be compared digit for digit.
func Decode(t testing.TB, b []byte) any {
	t.Helper()
	var v any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("decoding %s: %v", b, err)
	}
	return v
}

// Problem decodes a problem+json body.
func (r *Response) Problem(t testing.TB) Problem {
	t.Helper()
	if ct := r.Header.Get("Content-Type"); ct != "application/problem+json" {
		t.Fatalf("Content-Type %q, want application/problem+json (body %s)", ct, r.Body)
	}
	var p Problem
	r.JSON(t, &p)
	return p
}

// Problem is an RFC 9457 problem as the contract defines it.
type Problem struct {
	Type      string `json:"type"`
	Title     string `json:"title"`
	Status    int    `json:"status"`
	Detail    string `json:"detail"`
	Code      string `json:"code"`
	RequestID string `json:"request_id"`
}

// Get sends a GET with key in X-API-Key (none when empty).
func (c *Client) Get(path, key string) *Response {
	c.t.Helper()
	return c.Do(c.NewRequest(http.MethodGet, path, key, nil))
}

// Post sends body (a string or []byte as is, anything else as JSON) with
// Content-Type: application/json.
func (c *Client) Post(path, key string, body any) *Response {
	c.t.Helper()
	req := c.NewRequest(http.MethodPost, path, key, body)
	return c.Do(req)
}

// NewRequest builds a request; tests adjust it (headers, chunked bodies) before Do.
func (c *Client) NewRequest(method, path, key string, body any) *http.Request {
	c.t.Helper()
	var r io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		r = strings.NewReader(b)
	case []byte:
		r = bytes.NewReader(b)
	default:
		data, err := json.Marshal(b)
		if err != nil {
			c.t.Fatalf("encoding request: %v", err)
		}
		r = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(context.Background(), method, c.base+path, r)
	if err != nil {
		c.t.Fatalf("building request: %v", err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("X-API-Key", key)
	}
	return req
}

// Do sends req and validates the response against the contract. A transport error
// fails the test.
func (c *Client) Do(req *http.Request) *Response {
	c.t.Helper()
	out, err := c.TryDo(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", req.Method, req.URL.Path, err)
	}
	return out
}

// TryDo is Do for callers that expect transport errors (a server shutting down) and
// for goroutines, which must not call Fatal. A response that arrives is still
// validated, and a mismatch still fails the test.
func (c *Client) TryDo(req *http.Request) (*Response, error) {
	c.t.Helper()
	var reqBody []byte
	if req.Body != nil && req.GetBody != nil {
		if rc, err := req.GetBody(); err == nil {
			reqBody, _ = io.ReadAll(rc)
		}
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("reading body: %w", err)
	}
	out := &Response{Status: resp.StatusCode, Header: resp.Header, Body: body}
	if err := Validate(req, reqBody, out); err != nil {
		c.t.Errorf("%s %s -> %d does not match openapi.yaml: %v\nbody: %.500s", req.Method, req.URL.Path, out.Status, err, body)
	}
	return out, nil
}

// Validate checks a response against the contract: the status must be declared for
// the operation and the headers and body must match its schema. A response to a path
// the contract does not have must be a problem.
func Validate(req *http.Request, reqBody []byte, resp *Response) error {
	spec, rt, err := load()
	if err != nil {
		return err
	}
	if resp.Header.Get("X-Request-ID") == "" {
		return errMissingRequestID
	}
	// Route against a copy: the router may read the URL only, but the body is gone.
	r := req.Clone(context.Background())
	r.Body = io.NopCloser(bytes.NewReader(reqBody))
	route, params, err := rt.FindRoute(r)
	if err != nil {
		return validateProblem(spec, resp)
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{
			Request: r, PathParams: params, Route: route,
			Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc},
		},
		Status: resp.Status,
		Header: resp.Header,
		Body:   io.NopCloser(bytes.NewReader(resp.Body)),
		Options: &openapi3filter.Options{
			IncludeResponseStatus: true,
			MultiError:            true,
		},
	}
	return openapi3filter.ValidateResponse(context.Background(), in)
}

type validationError string

func (e validationError) Error() string { return string(e) }

const errMissingRequestID = validationError("no X-Request-ID header")

func validateProblem(spec *openapi3.T, resp *Response) error {
	if ct := resp.Header.Get("Content-Type"); ct != "application/problem+json" {
		return validationError("a response outside the contract's paths must be application/problem+json, got " + ct)
	}
	var v any
	if err := json.Unmarshal(resp.Body, &v); err != nil {
		return err
	}
	return spec.Components.Schemas["Problem"].Value.VisitJSON(v)
}
