package httpapi_test

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/inferd/inferd"
	"github.com/inferd/inferd/internal/apitest"
)

// countingListener counts every byte the server reads from its connections.
type countingListener struct {
	net.Listener
	n *atomic.Int64
}

func (l countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return countingConn{Conn: c, n: l.n}, nil
}

type countingConn struct {
	net.Conn
	n *atomic.Int64
}

func (c countingConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	c.n.Add(int64(n))
	return n, err
}

// rawConn is a client connection that sends hand-written requests, for what
// net/http's client does not do: hold a body back, wait for 100 Continue.
type rawConn struct {
	t    *testing.T
	conn net.Conn
	r    *bufio.Reader
}

func dialRaw(t *testing.T, base string) *rawConn {
	t.Helper()
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	_ = conn.SetDeadline(time.Now().Add(20 * time.Second))
	return &rawConn{t: t, conn: conn, r: bufio.NewReader(conn)}
}

// send writes a request's head: the request line and the headers given.
func (c *rawConn) send(method, path string, headers ...string) *http.Request {
	c.t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: inferd\r\n", method, path)
	req, _ := http.NewRequest(method, "http://inferd"+path, nil)
	for _, h := range headers {
		b.WriteString(h + "\r\n")
		k, v, _ := strings.Cut(h, ": ")
		req.Header.Add(k, v)
	}
	b.WriteString("\r\n")
	if _, err := io.WriteString(c.conn, b.String()); err != nil {
		c.t.Fatal(err)
	}
	return req
}

// response reads the next response (an interim 100 Continue included) and, unless it
// is interim, validates it against the contract.
func (c *rawConn) response(req *http.Request) *apitest.Response {
	c.t.Helper()
	resp, err := http.ReadResponse(c.r, req)
	if err != nil {
		c.t.Fatalf("reading the answer to %s %s: %v", req.Method, req.URL.Path, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	out := &apitest.Response{Status: resp.StatusCode, Header: resp.Header, Body: body}
	if resp.StatusCode >= 200 {
		if err := apitest.Validate(req, nil, out); err != nil {
			c.t.Errorf("%s %s -> %d does not match openapi.yaml: %v\nbody: %.500s", req.Method, req.URL.Path, out.Status, err, body)
		}
	}
	return out
}

// securedOperations lists every operation of the contract that needs a key, with its
// path filled in, except the queue dashboard (served in queue mode only).
func securedOperations(t *testing.T) [][2]string {
	t.Helper()
	spec, err := inferd.Contract()
	if err != nil {
		t.Fatal(err)
	}
	fill := strings.NewReplacer("{job_id}", "0b6f8a52-3c4d-4f6e-9a1b-2c3d4e5f6a7b", "{name}", "echo", "{version}", "v1",
		"{model_name}", "echo", "{model_version}", "v1")
	var out [][2]string
	for path, item := range spec.Paths.Map() {
		for method, op := range item.Operations() {
			if op.Security != nil && len(*op.Security) == 0 || op.OperationID == "queueUI" {
				continue
			}
			out = append(out, [2]string{method, fill.Replace(path)})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i][1]+out[i][0] < out[j][1]+out[j][0] })
	return out
}

// TestKeyBeforeBody: every operation that needs a key checks it from the headers,
// before reading a byte of the body. A keyless client announcing 200 MB with
// Expect: 100-continue gets its 401 and no 100 Continue, so it never sends the body;
// one that streams the body anyway has almost none of it read.
func TestKeyBeforeBody(t *testing.T) {
	var read atomic.Int64
	h := newHarness(t, func(s *setup) {
		s.listener = func(l net.Listener) net.Listener { return countingListener{Listener: l, n: &read} }
	})
	const huge = 200 << 20
	for _, op := range securedOperations(t) {
		method, path := op[0], op[1]
		t.Run(method+" "+path+"/expect continue", func(t *testing.T) {
			// A small body within the limit as well as a huge one: both must be refused
			// for the key alone.
			for _, size := range []int{25, huge} {
				for _, key := range []string{"", keyUnknown} {
					c := dialRaw(t, h.url)
					headers := []string{"Content-Type: application/json", "Content-Length: " + strconv.Itoa(size), "Expect: 100-continue"}
					if key != "" {
						headers = append(headers, "X-API-Key: "+key)
					}
					resp := c.response(c.send(method, path, headers...))
					if resp.Status != http.StatusUnauthorized {
						t.Fatalf("key %q, %d bytes: status %d, want 401 before the body (no 100 Continue): %s", key, size, resp.Status, resp.Body)
					}
					if code := errorCode(t, path, resp); code != "unauthorized" {
						t.Errorf("code %q, want unauthorized", code)
					}
				}
			}
		})
		t.Run(method+" "+path+"/streamed body", func(t *testing.T) {
			c := dialRaw(t, h.url)
			before := read.Load()
			req := c.send(method, path, "Content-Type: application/json", "Content-Length: "+strconv.Itoa(huge))
			go func() { // the body, sent regardless, until the server hangs up
				chunk := bytes.Repeat([]byte(" "), 64<<10)
				for sent := 0; sent < huge; sent += len(chunk) {
					if _, err := c.conn.Write(chunk); err != nil {
						return
					}
				}
			}()
			resp := c.response(req)
			if resp.Status != http.StatusUnauthorized {
				t.Fatalf("status %d, want 401: %s", resp.Status, resp.Body)
			}
			c.conn.Close()
			// net/http reads at most 256 KiB of an unread body to keep a connection;
			// this one is over that, so it closes instead.
			if n := read.Load() - before; n > 1<<20 {
				t.Errorf("the server read %d bytes of a keyless request's body", n)
			}
		})
	}
}

// TestRateLimitBeforeBody: a limited key's requests are refused 429 before their
// bodies are parsed, so invalid bodies cannot keep the server busy.
func TestRateLimitBeforeBody(t *testing.T) {
	h := newHarness(t, func(s *setup) { s.opts.RateLimitRPS = 0.01; s.opts.RateLimitBurst = 2 })
	var got []int
	for range 4 {
		got = append(got, h.c.Post("/predict", keyPredict, `{"model":"echo","data":`).Status)
	}
	if want := []int{400, 400, 429, 429}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("statuses %v, want %v: the bucket is charged before the body is parsed", got, want)
	}
	t.Run("a bad key is not charged to anyone", func(t *testing.T) {
		if resp := h.c.Post("/predict", keyUnknown, `{"model":"echo","data":1}`); resp.Status != http.StatusUnauthorized {
			t.Errorf("status %d, want 401", resp.Status)
		}
	})
}

// TestConcurrencyCap: a key's requests in progress are capped from the moment their
// headers are read; uploads held open count.
func TestConcurrencyCap(t *testing.T) {
	h := newHarness(t, func(s *setup) { s.opts.MaxConcurrentPerKey = 2 })
	body := `{"model":"echo","data":1}`
	var held []*rawConn
	var reqs []*http.Request
	for range 2 {
		c := dialRaw(t, h.url)
		req := c.send(http.MethodPost, "/predict", "X-API-Key: "+keyPredict, "Content-Type: application/json",
			"Content-Length: "+strconv.Itoa(len(body)), "Expect: 100-continue")
		// 100 Continue comes when the handler starts reading the body: the request
		// has been admitted and is in progress.
		if resp := c.response(req); resp.Status != http.StatusContinue {
			t.Fatalf("status %d, want 100: %s", resp.Status, resp.Body)
		}
		held, reqs = append(held, c), append(reqs, req)
	}
	resp := h.c.Post("/predict", keyPredict, body)
	if resp.Status != http.StatusTooManyRequests {
		t.Fatalf("a third request: status %d, want 429: %s", resp.Status, resp.Body)
	}
	if p := resp.Problem(t); p.Code != "concurrency_limited" || !strings.Contains(p.Detail, "MAX_CONCURRENT_PER_KEY") {
		t.Errorf("problem %+v", p)
	}
	if ra := resp.Header.Get("Retry-After"); ra != "1" {
		t.Errorf("Retry-After %q, want 1", ra)
	}
	t.Run("other keys are not capped", func(t *testing.T) {
		if resp := h.c.Get("/models", keyAdmin); resp.Status != http.StatusOK {
			t.Errorf("status %d", resp.Status)
		}
	})
	t.Run("a finished request frees its place", func(t *testing.T) {
		if _, err := io.WriteString(held[0].conn, body); err != nil {
			t.Fatal(err)
		}
		if resp := held[0].response(reqs[0]); resp.Status != http.StatusOK {
			t.Fatalf("the held request: status %d: %s", resp.Status, resp.Body)
		}
		if resp := h.c.Post("/predict", keyPredict, body); resp.Status != http.StatusOK {
			t.Errorf("status %d, want 200: %s", resp.Status, resp.Body)
		}
	})
}

// errorCode is the code of an error answer: a problem's, or on the Open Inference
// Protocol's routes (/v2) the code beside the protocol's "error" message.
func errorCode(t *testing.T, path string, resp *apitest.Response) string {
	t.Helper()
	if !strings.HasPrefix(path, "/v2") {
		return resp.Problem(t).Code
	}
	var e struct{ Error, Code string }
	resp.JSON(t, &e)
	if e.Error == "" {
		t.Errorf("no error message in %s", resp.Body)
	}
	return e.Code
}
