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

// OIPError decodes the Open Inference Protocol's error body, which every answer under
// /v2 that is not a success has.
func (r *Response) OIPError(t testing.TB) OIPError {
	t.Helper()
	if ct := r.Header.Get("Content-Type"); ct != "application/json" {
		t.Fatalf("Content-Type %q, want application/json (body %s)", ct, r.Body)
	}
	var e OIPError
	r.JSON(t, &e)
	if e.Error == "" || e.Code == "" || e.RequestID == "" {
		t.Fatalf("%s is not the protocol's error: want error, code and request_id", r.Body)
	}
	return e
}

// OIPError is the Open Inference Protocol's error, with inferd's code and request id.
type OIPError struct {
	Error     string `json:"error"`
	Code      string `json:"code"`
	RequestID string `json:"request_id"`
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
// validated, and a mismatch still fails the test. A GET without a body is also sent
// as HEAD, except in benchmarks, and the two answers must agree (see checkHead).
func (c *Client) TryDo(req *http.Request) (*Response, error) {
	c.t.Helper()
	_, bench := c.t.(*testing.B)
	alsoHead := req.Method == http.MethodGet && req.Body == nil && !bench
	out, err := c.send(req)
	if err == nil && alsoHead {
		c.checkHead(req, out)
	}
	return out, err
}

// send sends req and validates the response.
func (c *Client) send(req *http.Request) (*Response, error) {
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

// headerSkip are the headers a HEAD may answer differently from its GET: the date,
// and the request id, which is new for every request.
var headerSkip = map[string]bool{"Date": true, "X-Request-Id": true}

// profilePath prefixes the profiles, which are taken anew for every request, so a
// HEAD's Content-Length is not its GET's.
const profilePath = "/debug/pprof/"

// checkHead sends get again as HEAD and checks that the answer is the GET's status and
// headers with no body (RFC 9110 9.3.2). A resource that changed in between (a job
// that finished, /ready turning ready) is given two more GET and HEAD pairs to agree.
func (c *Client) checkHead(get *http.Request, got *Response) {
	c.t.Helper()
	for attempt := 1; ; attempt++ {
		head := get.Clone(context.Background())
		head.Method = http.MethodHead
		resp, err := c.send(head)
		if err != nil {
			return // a server going away; the GET's caller deals with that
		}
		diff := headDiff(get.URL.Path, got, resp)
		if diff == "" {
			return
		}
		if attempt == 3 {
			c.t.Errorf("HEAD %s does not answer as its GET does: %s", get.URL.Path, diff)
			return
		}
		if got, err = c.send(get.Clone(context.Background())); err != nil {
			return
		}
	}
}

// headDiff says how a HEAD's answer differs from its GET's, or "" when it does not.
func headDiff(path string, get, head *Response) string {
	if len(head.Body) != 0 {
		return fmt.Sprintf("a %d-byte body", len(head.Body))
	}
	if get.Status != head.Status {
		return fmt.Sprintf("status %d, GET %d", head.Status, get.Status)
	}
	names := map[string]bool{}
	for k := range get.Header {
		names[k] = true
	}
	for k := range head.Header {
		names[k] = true
	}
	for k := range names {
		if headerSkip[k] || k == "Content-Length" && strings.HasPrefix(path, profilePath) {
			continue
		}
		if a, b := strings.Join(get.Header[k], ", "), strings.Join(head.Header[k], ", "); a != b {
			return fmt.Sprintf("header %s %q, GET %q", k, b, a)
		}
	}
	return ""
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
	if isPreflight(req) && resp.Status == http.StatusNoContent {
		return validatePreflight(resp)
	}
	// Route against a copy: the router may read the URL only, but the body is gone.
	r := req.Clone(context.Background())
	r.Body = io.NopCloser(bytes.NewReader(reqBody))
	// HEAD is the GET operation without its body: the contract lists GETs only.
	head := req.Method == http.MethodHead
	if head {
		if len(resp.Body) != 0 {
			return validationError("a HEAD answer has a body")
		}
		r.Method = http.MethodGet
	}
	route, params, err := rt.FindRoute(r)
	if err != nil {
		if head {
			return validateHeadProblem(r.URL.Path, resp)
		}
		return validateProblem(spec, r.URL.Path, resp)
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
			ExcludeResponseBody:   head,
		},
	}
	return openapi3filter.ValidateResponse(context.Background(), in)
}

type validationError string

func (e validationError) Error() string { return string(e) }

const errMissingRequestID = validationError("no X-Request-ID header")

// outsideContentType is the type of an answer to a path or method the contract does not
// have: a problem, or under /v2 the Open Inference Protocol's error, which its clients
// read there whatever went wrong.
func outsideContentType(path string) (string, string) {
	if path == "/v2" || strings.HasPrefix(path, "/v2/") {
		return "application/json", "OIPError"
	}
	return "application/problem+json", "Problem"
}

func validateHeadProblem(path string, resp *Response) error {
	want, _ := outsideContentType(path)
	if ct := resp.Header.Get("Content-Type"); ct != want {
		return validationError("a HEAD outside the contract's operations must be answered as " + want + ", got " + ct)
	}
	return nil
}

// isPreflight reports whether req is a CORS preflight, which browsers send before a
// cross-origin call. CORS lives outside OpenAPI, so the contract does not list it.
func isPreflight(req *http.Request) bool {
	return req.Method == http.MethodOptions && req.Header.Get("Origin") != "" && req.Header.Get("Access-Control-Request-Method") != ""
}

// validatePreflight accepts a preflight's answer: no body, and the origin it allows.
func validatePreflight(resp *Response) error {
	if len(resp.Body) != 0 {
		return validationError("a preflight answer has a body")
	}
	if resp.Header.Get("Access-Control-Allow-Origin") == "" {
		return validationError("a 204 preflight answer without Access-Control-Allow-Origin")
	}
	return nil
}

func validateProblem(spec *openapi3.T, path string, resp *Response) error {
	want, schema := outsideContentType(path)
	if ct := resp.Header.Get("Content-Type"); ct != want {
		return validationError("a response outside the contract's operations must be " + want + ", got " + ct)
	}
	var v any
	if err := json.Unmarshal(resp.Body, &v); err != nil {
		return err
	}
	return spec.Components.Schemas[schema].Value.VisitJSON(v)
}
