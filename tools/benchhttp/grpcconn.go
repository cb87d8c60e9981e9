package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// The windows GRPCConn offers the server: large enough that a 1 MB answer needs no
// WINDOW_UPDATE of its stream and the connection's is topped up once in a few calls,
// which is where grpc-go's client ends up too once its BDP estimate has grown.
const (
	grpcStreamWindow = 4 << 20
	grpcConnWindow   = 16 << 20
	http2InitWindow  = 65535 // RFC 9113's, until SETTINGS say otherwise
	http2InitFrame   = 16384
)

// GRPCConn is one HTTP/2 connection that makes unary gRPC calls one at a time, used
// by one goroutine: the request's HEADERS block is encoded once, a call writes it and
// the length-prefixed message in one writev (as flow control allows) and reads the
// answer's HEADERS, DATA and trailers on the same goroutine.
//
// It stands in for grpc-go's client for the reason Conn stands in for net/http's:
// the load generator shares the cores with the server it measures, and grpc-go hands
// each call between the caller's goroutine, a reader and a writer goroutine per
// connection. It speaks what a gRPC server needs: the preface and SETTINGS (acknowledged
// both ways), PING acknowledgements, WINDOW_UPDATEs for what it received, the server's
// windows and frame size for what it sends, RST_STREAM and GOAWAY, and grpc-status.
type GRPCConn struct {
	ctx   context.Context // its end cuts the call in flight off
	addr  string          // host:port
	block []byte          // HPACK block of the request's headers, the same every call

	nc   net.Conn // nil: not connected
	br   *bufio.Reader
	fr   *http2.Framer // reads from br; writes control frames into ctl
	ctl  bytes.Buffer  // control frames to send with the next write
	stop func() bool
	next uint32 // the next stream's id
	away bool   // the server sent GOAWAY: dial again after this call

	sendConn   int64 // what the server lets this side send on the connection
	sendInit   int64 // the server's SETTINGS_INITIAL_WINDOW_SIZE
	sendStream int64 // what it lets this side send on the call's stream
	maxFrame   int   // the server's SETTINGS_MAX_FRAME_SIZE
	recvConn   int   // received on the connection since the last WINDOW_UPDATE

	hdr  []byte      // frame headers of the write being built
	bufs net.Buffers // the write being built
	call grpcCall
}

// grpcCall is the state of the call in flight.
type grpcCall struct {
	id      uint32
	recv    int    // received on its stream since the last WINDOW_UPDATE
	body    []byte // the answer's DATA: length-prefixed message
	headers bool   // its response headers arrived
	done    bool   // its stream ended or was reset
	status  int    // grpc-status; -1 until the trailers
	message string // grpc-message
	err     error  // a protocol error: the connection is not reused
}

// NewGRPCConn is a connection to addr whose calls go to method with the headers' values
// (lower-case names, as HTTP/2 wants) as metadata; it dials on first use and again after
// an error.
func NewGRPCConn(ctx context.Context, addr, method string, md ...Header) *GRPCConn {
	var block bytes.Buffer
	enc := hpack.NewEncoder(&block)
	// A table of 0: no field is indexed, so the same block is valid on every stream.
	enc.SetMaxDynamicTableSizeLimit(0)
	fields := []hpack.HeaderField{
		{Name: ":method", Value: "POST"},
		{Name: ":scheme", Value: "http"},
		{Name: ":path", Value: method},
		{Name: ":authority", Value: addr},
		{Name: "content-type", Value: "application/grpc"},
		{Name: "te", Value: "trailers"},
	}
	for _, h := range md {
		fields = append(fields, hpack.HeaderField{Name: h.Name, Value: h.Value})
	}
	for _, f := range fields {
		_ = enc.WriteField(f) // writes into a bytes.Buffer: no error
	}
	return &GRPCConn{ctx: ctx, addr: addr, block: block.Bytes(), br: bufio.NewReaderSize(nil, 32<<10)}
}

// Close closes the connection; a later call dials again.
func (c *GRPCConn) Close() {
	if c.nc == nil {
		return
	}
	c.stop()
	_ = c.nc.Close()
	c.nc = nil
}

// Invoke sends msg, a marshalled request, and returns the answer's marshalled message,
// valid until the next call; a grpc-status other than OK is a status error.
func (c *GRPCConn) Invoke(msg []byte) ([]byte, error) {
	if err := c.ctx.Err(); err != nil {
		return nil, err
	}
	if err := c.dial(); err != nil {
		return nil, err
	}
	answer, err := c.invoke(msg)
	if err == nil && (c.away || c.next > 1<<30) {
		c.Close() // a new connection for the next call: this one is ending
	}
	if err != nil && c.call.err == nil && c.call.done {
		return nil, err // an answer, not OK: the connection carries on
	}
	if err != nil {
		c.Close()
		if ctxErr := c.ctx.Err(); ctxErr != nil {
			return nil, ctxErr
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return nil, fmt.Errorf("no answer within %s", requestTimeout)
		}
	}
	return answer, err
}

func (c *GRPCConn) dial() error {
	if c.nc != nil {
		return nil
	}
	d := net.Dialer{Timeout: 5 * time.Second}
	nc, err := d.DialContext(c.ctx, "tcp", c.addr)
	if err != nil {
		return err
	}
	c.nc = nc
	c.br.Reset(nc)
	c.ctl.Reset()
	c.fr = http2.NewFramer(&c.ctl, c.br)
	c.fr.ReadMetaHeaders = hpack.NewDecoder(4096, nil)
	c.next, c.away = 1, false
	c.sendConn, c.sendInit, c.maxFrame, c.recvConn = http2InitWindow, http2InitWindow, http2InitFrame, 0
	// As Conn: a deadline in the past makes the read or write in flight return.
	c.stop = context.AfterFunc(c.ctx, func() { _ = nc.SetDeadline(time.Unix(1, 0)) })
	// The preface and this side's SETTINGS go out with the first call's request.
	c.ctl.WriteString(http2.ClientPreface)
	_ = c.fr.WriteSettings(http2.Setting{ID: http2.SettingEnablePush}, http2.Setting{ID: http2.SettingInitialWindowSize, Val: grpcStreamWindow})
	_ = c.fr.WriteWindowUpdate(0, grpcConnWindow-http2InitWindow)
	return nil
}

func (c *GRPCConn) invoke(msg []byte) ([]byte, error) {
	if err := c.nc.SetDeadline(time.Now().Add(requestTimeout)); err != nil {
		return nil, err
	}
	c.call = grpcCall{id: c.next, body: c.call.body[:0], status: -1}
	c.next += 2
	c.sendStream = c.sendInit

	// The message, length-prefixed, goes in DATA frames after the HEADERS.
	prefix := [5]byte{}
	binary.BigEndian.PutUint32(prefix[1:], uint32(len(msg)))
	size := len(prefix) + len(msg)
	part := func(off, n int) [][]byte { // the bytes [off, off+n) of prefix+msg
		var out [][]byte
		if off < len(prefix) {
			k := min(n, len(prefix)-off)
			out = append(out, prefix[off:off+k])
			off, n = off+k, n-k
		}
		if n > 0 {
			out = append(out, msg[off-len(prefix):off-len(prefix)+n])
		}
		return out
	}
	c.hdr = appendFrameHeader(c.hdr[:0], len(c.block), http2.FrameHeaders, http2.FlagHeadersEndHeaders, c.call.id)
	headers := true
	for sent := 0; sent < size; {
		c.bufs = c.bufs[:0]
		if c.ctl.Len() > 0 {
			c.bufs = append(c.bufs, c.ctl.Bytes())
		}
		if headers {
			c.bufs = append(c.bufs, c.hdr, c.block)
			headers = false
		}
		for sent < size && c.sendConn > 0 && c.sendStream > 0 {
			n := int(min(int64(size-sent), int64(c.maxFrame), c.sendConn, c.sendStream))
			var flags http2.Flags
			if sent+n == size {
				flags = http2.FlagDataEndStream
			}
			start := len(c.hdr)
			c.hdr = appendFrameHeader(c.hdr, n, http2.FrameData, flags, c.call.id)
			c.bufs = append(c.bufs, c.hdr[start:])
			c.bufs = append(c.bufs, part(sent, n)...)
			sent += n
			c.sendConn -= int64(n)
			c.sendStream -= int64(n)
		}
		if len(c.bufs) > 0 {
			bufs := c.bufs // WriteTo consumes its receiver: c.bufs keeps its array
			if _, err := bufs.WriteTo(c.nc); err != nil {
				return nil, err
			}
			c.ctl.Reset()
		}
		c.hdr = c.hdr[:0] // written: the next round's headers start afresh
		// Out of window: read until the server opens it, or answers early (an error).
		for sent < size && (c.sendConn <= 0 || c.sendStream <= 0) && !c.call.done {
			if err := c.readFrame(); err != nil {
				return nil, err
			}
		}
		if c.call.done {
			break
		}
	}
	for !c.call.done {
		if err := c.readFrame(); err != nil {
			return nil, err
		}
	}
	return c.call.result()
}

// appendFrameHeader appends the 9 bytes that open an HTTP/2 frame.
func appendFrameHeader(b []byte, length int, t http2.FrameType, flags http2.Flags, stream uint32) []byte {
	return append(b, byte(length>>16), byte(length>>8), byte(length), byte(t), byte(flags),
		byte(stream>>24), byte(stream>>16), byte(stream>>8), byte(stream))
}

// readFrame reads one frame and does what it asks. Control frames it answers go out
// before a read that would wait for the server, or with the next call.
func (c *GRPCConn) readFrame() error {
	if c.ctl.Len() > 0 && c.br.Buffered() == 0 {
		if _, err := c.nc.Write(c.ctl.Bytes()); err != nil {
			return err
		}
		c.ctl.Reset()
	}
	f, err := c.fr.ReadFrame()
	if err != nil {
		return err
	}
	k := &c.call
	mine := f.Header().StreamID == k.id
	switch f := f.(type) {
	case *http2.DataFrame:
		n := int(f.Length) // padding included: flow control counts it
		if c.recvConn += n; c.recvConn >= grpcConnWindow/2 {
			_ = c.fr.WriteWindowUpdate(0, uint32(c.recvConn))
			c.recvConn = 0
		}
		if !mine || k.done {
			return nil
		}
		if !k.headers {
			return k.fail(errors.New("DATA before the response headers"))
		}
		if len(k.body)+len(f.Data()) > grpcMaxMessage+5 {
			return k.fail(fmt.Errorf("an answer over %d bytes", grpcMaxMessage))
		}
		k.body = append(k.body, f.Data()...)
		if f.StreamEnded() {
			k.done = true // no trailers: result says grpc-status is missing
			return nil
		}
		if k.recv += n; k.recv >= grpcStreamWindow/2 {
			_ = c.fr.WriteWindowUpdate(k.id, uint32(k.recv))
			k.recv = 0
		}
	case *http2.MetaHeadersFrame:
		if !mine {
			return nil
		}
		if f.Truncated {
			return k.fail(errors.New("response headers over the decoder's limit"))
		}
		if !k.headers {
			k.headers = true
			if s := f.PseudoValue("status"); s != "200" {
				return k.fail(fmt.Errorf("HTTP status %q", s))
			}
			if ct := headerValue(f, "content-type"); !strings.HasPrefix(ct, "application/grpc") {
				return k.fail(fmt.Errorf("content-type %q", ct))
			}
		}
		if s := headerValue(f, "grpc-status"); s != "" {
			n, err := strconv.Atoi(s)
			if err != nil || n < 0 {
				return k.fail(fmt.Errorf("grpc-status %q", s))
			}
			k.status, k.message = n, decodeGRPCMessage(headerValue(f, "grpc-message"))
		}
		if f.StreamEnded() {
			k.done = true
		}
	case *http2.RSTStreamFrame:
		if mine && !k.done {
			k.done = true
			return k.fail(fmt.Errorf("stream reset: %v", f.ErrCode))
		}
	case *http2.SettingsFrame:
		if f.IsAck() {
			return nil
		}
		err := f.ForeachSetting(func(s http2.Setting) error {
			switch s.ID {
			case http2.SettingInitialWindowSize:
				c.sendStream += int64(s.Val) - c.sendInit
				c.sendInit = int64(s.Val)
			case http2.SettingMaxFrameSize:
				c.maxFrame = int(s.Val)
			}
			return nil
		})
		if err != nil {
			return err
		}
		_ = c.fr.WriteSettingsAck()
	case *http2.PingFrame:
		if !f.IsAck() {
			_ = c.fr.WritePing(true, f.Data)
		}
	case *http2.WindowUpdateFrame:
		switch f.StreamID {
		case 0:
			c.sendConn += int64(f.Increment)
		case k.id:
			c.sendStream += int64(f.Increment)
		}
	case *http2.GoAwayFrame:
		c.away = true
		if k.id > f.LastStreamID {
			return k.fail(fmt.Errorf("GOAWAY %v before the call's stream", f.ErrCode))
		}
	}
	return nil
}

// fail ends the call with a protocol error, which also ends the connection.
func (k *grpcCall) fail(err error) error {
	k.done, k.err = true, err
	return err
}

// result is the answer's message, or its status as an error.
func (k *grpcCall) result() ([]byte, error) {
	switch {
	case k.err != nil:
		return nil, k.err
	case k.status < 0:
		return nil, errors.New("an answer without grpc-status")
	case k.status != 0:
		return nil, status.Error(codes.Code(k.status), k.message)
	case len(k.body) < 5:
		return nil, fmt.Errorf("an answer of %d bytes, no message", len(k.body))
	case k.body[0] != 0:
		return nil, errors.New("a compressed answer; none was offered")
	}
	n := binary.BigEndian.Uint32(k.body[1:5])
	if int(n) != len(k.body)-5 {
		return nil, fmt.Errorf("an answer of %d bytes after a prefix of %d", len(k.body)-5, n)
	}
	return k.body[5:], nil
}

// headerValue is the value of a regular header field name, or "".
func headerValue(f *http2.MetaHeadersFrame, name string) string {
	for _, hf := range f.RegularFields() {
		if hf.Name == name {
			return hf.Value
		}
	}
	return ""
}

// decodeGRPCMessage undoes grpc-message's percent-encoding.
func decodeGRPCMessage(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+3], 16, 8); err == nil {
				b.WriteByte(byte(v))
				i += 2
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
