package httpapi

import (
	"bytes"
	"encoding/json"
	"net"
	"net/http"
	"strconv"

	"github.com/inferd/inferd/gen/api"
)

// ProblemListener wraps ln so that the answers net/http writes by itself, before any
// handler runs, are problems like every other answer: a request line, path escape or
// header it cannot parse (400), headers over the server's MaxHeaderBytes (431), a
// Transfer-Encoding it does not know (501), an HTTP version it does not speak (505).
// net/http writes those as text/plain in one write straight to the connection, in a
// shape no handler's answer has (no Date, no X-Request-ID), which is how they are told
// apart here.
func ProblemListener(ln net.Listener) net.Listener { return problemListener{ln} }

type problemListener struct{ net.Listener }

func (l problemListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return problemConn{c}, nil
}

type problemConn struct{ net.Conn }

// cannedHeaders is what net/http puts between the status line and the text of the
// answers it writes itself.
const cannedHeaders = "\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n"

func (c problemConn) Write(p []byte) (int, error) {
	out := cannedProblem(p)
	if out == nil {
		return c.Conn.Write(p)
	}
	if _, err := c.Conn.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// CloseWrite keeps net/http's half-close after a 431, which it finds by this method.
func (c problemConn) CloseWrite() error { return closeWrite(c.Conn) }

// closeWrite half-closes c when it can: the CloseWrite of a connection wrapper, which
// hides the TCP connection's own from net/http.
func closeWrite(c net.Conn) error {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// cannedProblem rewrites one of net/http's own answers as a problem, or returns nil
// when p is not one.
func cannedProblem(p []byte) []byte {
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
	prob := api.Problem{Type: problemTypeBase + code, Title: titles[code], Status: status, Code: code, Detail: detail, RequestId: newRequestID()}
	var body bytes.Buffer
	enc := json.NewEncoder(&body)
	enc.SetEscapeHTML(false)
	if enc.Encode(prob) != nil {
		return nil
	}
	var out bytes.Buffer
	out.WriteString(proto + strconv.Itoa(status) + " " + http.StatusText(status) + "\r\n")
	out.WriteString("Content-Type: application/problem+json\r\nConnection: close\r\n")
	out.WriteString("X-Request-Id: " + prob.RequestId + "\r\n")
	out.WriteString("Content-Length: " + strconv.Itoa(body.Len()) + "\r\n\r\n")
	out.Write(body.Bytes())
	return out.Bytes()
}

// cannedCode is the code and an actionable detail for one of net/http's own answers;
// said is the reason net/http gave, if any (never the client's bytes).
func cannedCode(status int, said string) (code, detail string) {
	switch status {
	case http.StatusRequestHeaderFieldsTooLarge:
		return codeHeaderTooLarge, "the request's headers are too large; send fewer or shorter headers"
	case http.StatusNotImplemented:
		return codeNotImplemented, "the request's Transfer-Encoding is not supported; send the body with Content-Length or Transfer-Encoding: chunked"
	case http.StatusHTTPVersionNotSupported:
		return codeNotImplemented, "the request's HTTP version is not supported; use HTTP/1.1 or HTTP/2"
	}
	if said == "" {
		said = "the request line or a header could not be parsed (a malformed percent-escape in the path, say)"
	}
	return codeInvalidRequest, said + "; fix the request"
}
