package canned

import (
	"bytes"
	"encoding/json"
	"net"
	"net/http"
	"strconv"
	"sync/atomic"

	"github.com/inferd/inferd/internal/problem"
)

// Config words the answers. The zero value lets net/http's answers through as they
// are.
type Config struct {
	// Prefix starts the paths whose answers Answer gives another shape (the Open
	// Inference Protocol's /v2); "": no path does.
	Prefix string
	// Answer is the body of one of net/http's own answers, as the server answers its
	// refusals, with its content type and the request id it names: for the answer's
	// status, code and detail, and whether the request's path was under Prefix. nil:
	// no answer is rewritten.
	Answer func(status int, code, detail string, underPrefix bool) (body any, contentType, id string)
}

// Listener wraps ln so that the answers net/http writes by itself, before any handler
// runs, are written as cfg.Answer words them: a request line, path escape or header it
// cannot parse (400), headers over the server's MaxHeaderBytes (431), a
// Transfer-Encoding it does not know (501), an HTTP version it does not speak (505).
// net/http writes those as text/plain in one write straight to the connection, in a
// shape no handler's answer has (no Date, no X-Request-ID), which is how they are told
// apart here.
func Listener(ln net.Listener, cfg Config) net.Listener {
	if cfg.Answer == nil {
		return ln
	}
	return problemListener{Listener: ln, cfg: cfg}
}

type problemListener struct {
	net.Listener
	cfg Config
}

func (l problemListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &problemConn{Conn: c, cfg: &l.cfg}, nil
}

type problemConn struct {
	net.Conn
	cfg *Config
	// oip: the last request line read names a path under Prefix. net/http answers a
	// request it cannot parse without telling which it was; the request line is
	// where a connection's reads start, for all but pipelined requests. Atomic since
	// net/http's background read runs beside a handler's writes.
	oip atomic.Bool
}

func (c *problemConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if oip, ok := requestLineOIP(p[:n], c.cfg.Prefix); ok {
		c.oip.Store(oip)
	}
	return n, err
}

func (c *problemConn) Write(p []byte) (int, error) {
	out := cannedProblem(p, c.oip.Load(), c.cfg.Answer)
	if out == nil {
		return c.Conn.Write(p)
	}
	if _, err := c.Conn.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// cannedHeaders is what net/http puts between the status line and the text of the
// answers it writes itself.
const cannedHeaders = "\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n"

// requestLineOIP reads the start of a request line ("METHOD /target ..."): whether its
// target is a path under prefix, and whether b starts with a request line at all.
func requestLineOIP(b []byte, prefix string) (oip, ok bool) {
	sp := bytes.IndexByte(b[:min(len(b), 16)], ' ')
	if sp <= 0 {
		return false, false
	}
	for _, c := range b[:sp] {
		if c < 'A' || c > 'Z' {
			return false, false
		}
	}
	target := b[sp+1:]
	if prefix == "" || !bytes.HasPrefix(target, []byte(prefix)) {
		return false, true
	}
	rest := target[len(prefix):]
	return len(rest) == 0 || rest[0] == '/' || rest[0] == '?' || rest[0] == ' ', true
}

// CloseWrite keeps net/http's half-close after a 431, which it finds by this method.
func (c *problemConn) CloseWrite() error { return closeWrite(c.Conn) }

// closeWrite half-closes c when it can: the CloseWrite of a connection wrapper, which
// hides the TCP connection's own from net/http.
func closeWrite(c net.Conn) error {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// cannedProblem rewrites one of net/http's own answers as answer words it, or returns
// nil when p is not one.
func cannedProblem(p []byte, oip bool, answer func(int, string, string, bool) (any, string, string)) []byte {
	const proto = "HTTP/1.1 "
	// A handler's answers pass through here too, most of them 2xx: the status's first
	// digit turns those away before anything is searched.
	if len(p) < len(proto)+3 || p[len(proto)] < '4' || !bytes.HasPrefix(p, []byte(proto)) {
		return nil
	}
	end := bytes.Index(p, []byte("\r\n"))
	if end < 0 || !bytes.HasPrefix(p[end:], []byte(cannedHeaders)) {
		return nil
	}
	status, err := strconv.Atoi(string(p[len(proto) : len(proto)+3]))
	if err != nil || status < 400 {
		return nil
	}
	_, said, _ := bytes.Cut(p[len(proto):end], []byte(": "))
	code, detail := cannedCode(status, string(said))
	body, ct, id := answer(status, code, detail, oip)
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(body) != nil {
		return nil
	}
	var out bytes.Buffer
	out.WriteString(proto + strconv.Itoa(status) + " " + http.StatusText(status) + "\r\n")
	out.WriteString("Content-Type: " + ct + "\r\nConnection: close\r\n")
	out.WriteString("X-Request-Id: " + id + "\r\n")
	out.WriteString("Content-Length: " + strconv.Itoa(b.Len()) + "\r\n\r\n")
	out.Write(b.Bytes())
	return out.Bytes()
}

// cannedCode is the code and an actionable detail for one of net/http's own answers;
// said is the reason net/http gave, if any (never the client's bytes).
func cannedCode(status int, said string) (code, detail string) {
	switch status {
	case http.StatusRequestHeaderFieldsTooLarge:
		return problem.CodeHeaderTooLarge, "the request's headers are too large; send fewer or shorter headers"
	case http.StatusNotImplemented:
		return problem.CodeNotImplemented, "the request's Transfer-Encoding is not supported; send the body with Content-Length or Transfer-Encoding: chunked"
	case http.StatusHTTPVersionNotSupported:
		return problem.CodeNotImplemented, "the request's HTTP version is not supported; use HTTP/1.1 or HTTP/2"
	}
	if said == "" {
		said = "the request line or a header could not be parsed (a malformed percent-escape in the path, say)"
	}
	return problem.CodeInvalidRequest, said + "; fix the request"
}
