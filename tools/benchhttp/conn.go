package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// requestTimeout bounds one request, as a client's timeout would: a server that hangs
// fails its case instead of the run.
const requestTimeout = 30 * time.Second

// Conn is one keep-alive HTTP/1.1 connection, used by one goroutine at a time: a
// request's bytes go out in one write and its answer is read with http.ReadResponse.
//
// It stands in for net/http's client because the load generator shares the machine
// with the server it measures. The Transport hands each request between the caller's
// goroutine and two of its own per connection, CPU that comes out of what the server
// has; wrk spends far less (see docs/design.md#the-load-generator).
type Conn struct {
	ctx  context.Context // its end cuts the request in flight off
	addr string          // host:port of the open connection
	nc   net.Conn        // nil: not connected
	br   *bufio.Reader
	head []byte // the request line and headers, rebuilt for each request
	stop func() bool
}

// NewConn is a connection whose requests end when ctx does; it dials on first use and
// again after an error or a server's Connection: close.
func NewConn(ctx context.Context) *Conn {
	return &Conn{ctx: ctx, br: bufio.NewReaderSize(nil, 16<<10), head: make([]byte, 0, 256)}
}

// Close closes the connection; a later request dials again.
func (c *Conn) Close() {
	if c.nc == nil {
		return
	}
	c.stop()
	_ = c.nc.Close()
	c.nc = nil
}

// Header is a request header's name and value.
type Header struct{ Name, Value string }

// Do sends one request to url (http://host:port/path) and reads its answer whole, so
// that the connection can carry the next. A status other than 200 is an error holding
// the start of the body; into, when set, receives the JSON body.
func (c *Conn) Do(method, url string, headers []Header, body []byte, into any) error {
	if err := c.ctx.Err(); err != nil {
		return err
	}
	host, path, err := splitURL(url)
	if err != nil {
		return err
	}
	if err := c.dial(host); err != nil {
		return err
	}
	err = c.roundTrip(method, host, path, headers, body, into)
	if err != nil {
		c.Close()
		if ctxErr := c.ctx.Err(); ctxErr != nil {
			return ctxErr
		}
		return fmt.Errorf("%s %s: %w", method, url, err)
	}
	return nil
}

func (c *Conn) dial(host string) error {
	if c.nc != nil && c.addr == host {
		return nil
	}
	c.Close()
	d := net.Dialer{Timeout: 5 * time.Second}
	nc, err := d.DialContext(c.ctx, "tcp", host)
	if err != nil {
		return err
	}
	c.nc, c.addr = nc, host
	c.br.Reset(nc)
	// Once per connection rather than per request: a deadline in the past makes the
	// read or write in flight return when the run is cut off.
	c.stop = context.AfterFunc(c.ctx, func() { _ = nc.SetDeadline(time.Unix(1, 0)) })
	return nil
}

func (c *Conn) roundTrip(method, host, path string, headers []Header, body []byte, into any) error {
	h := append(c.head[:0], method...)
	h = append(h, ' ')
	h = append(h, path...)
	h = append(h, " HTTP/1.1\r\nHost: "...)
	h = append(h, host...)
	h = append(h, "\r\n"...)
	for _, kv := range headers {
		h = append(h, kv.Name...)
		h = append(h, ": "...)
		h = append(h, kv.Value...)
		h = append(h, "\r\n"...)
	}
	if body != nil {
		h = append(h, "Content-Length: "...)
		h = strconv.AppendInt(h, int64(len(body)), 10)
		h = append(h, "\r\n"...)
	}
	h = append(h, "\r\n"...)
	c.head = h
	if err := c.nc.SetDeadline(time.Now().Add(requestTimeout)); err != nil {
		return err
	}
	bufs := net.Buffers{h, body} // one writev, however large the body
	if _, err := bufs.WriteTo(c.nc); err != nil {
		return err
	}
	resp, err := http.ReadResponse(c.br, nil)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fmt.Errorf("%d %s", resp.StatusCode, msg)
	}
	if into != nil {
		if err := json.NewDecoder(resp.Body).Decode(into); err != nil {
			return err
		}
	}
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return err
	}
	if resp.Close {
		c.Close()
	}
	return nil
}

// splitURL takes http://host:port/path apart without allocating.
func splitURL(url string) (host, path string, err error) {
	rest, ok := strings.CutPrefix(url, "http://")
	if !ok {
		return "", "", errors.New("benchhttp: only http:// URLs: " + url)
	}
	i := strings.IndexByte(rest, '/')
	if i < 0 {
		return rest, "/", nil
	}
	return rest[:i], rest[i:], nil
}
