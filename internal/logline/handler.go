package logline

import (
	"context"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"
)

// Handler is a slog.Handler; see the package comment.
type Handler struct {
	slow slog.Handler // slog's own, for the records the fast path leaves
	w    io.Writer
	json bool
	sep  byte // between attributes: ',' in JSON, ' ' in text
	fast bool // false when the options ask for what only slog's handler does
	// stamp is the second of the last record's time, formatted (appendTime).
	stamp atomic.Pointer[stamp]
}

// New returns a handler writing to w like slog.NewJSONHandler(w, opts) when json is
// set, else like slog.NewTextHandler(w, opts). Each record is one Write, made from
// the goroutine that logs it, so w must be safe for concurrent use (an *os.File or a
// logbuf.Writer is).
func New(w io.Writer, json bool, opts *slog.HandlerOptions) *Handler {
	if opts == nil {
		opts = &slog.HandlerOptions{}
	}
	h := &Handler{w: w, json: json, sep: ' ', fast: opts.ReplaceAttr == nil && !opts.AddSource}
	if json {
		h.sep = ','
		h.slow = slog.NewJSONHandler(w, opts)
	} else {
		h.slow = slog.NewTextHandler(w, opts)
	}
	return h
}

// Enabled is slog's handler's answer.
func (h *Handler) Enabled(ctx context.Context, l slog.Level) bool { return h.slow.Enabled(ctx, l) }

// WithAttrs and WithGroup return slog's own handler: a derived logger's lines are the
// rare ones.
func (h *Handler) WithAttrs(attrs []slog.Attr) slog.Handler { return h.slow.WithAttrs(attrs) }

func (h *Handler) WithGroup(name string) slog.Handler { return h.slow.WithGroup(name) }

var buffers = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

// Handle writes r, by the fast path when it can.
func (h *Handler) Handle(ctx context.Context, r slog.Record) error {
	if !h.fast {
		return h.slow.Handle(ctx, r)
	}
	bp := buffers.Get().(*[]byte)
	b, ok := h.appendRecord((*bp)[:0], r)
	if !ok {
		buffers.Put(bp)
		return h.slow.Handle(ctx, r)
	}
	_, err := h.w.Write(b)
	if cap(b) <= 16<<10 { // a rare huge line does not stay in the pool
		*bp = b
		buffers.Put(bp)
	}
	return err
}

// appendRecord appends r's line as slog would write it; ok false leaves it to slog.
func (h *Handler) appendRecord(b []byte, r slog.Record) (_ []byte, ok bool) {
	level, ok := levelName(r.Level)
	if !ok {
		return nil, false
	}
	// The built-in keys need neither quoting nor escaping.
	if h.json {
		b = append(b, '{')
	}
	if !r.Time.IsZero() {
		if h.json {
			b = append(b, `"time":`...)
		} else {
			b = append(b, "time="...)
		}
		if b, ok = h.appendTime(b, r.Time.Round(0)); !ok {
			return nil, false
		}
		b = append(b, h.sep)
	}
	if h.json {
		b = append(append(append(b, `"level":"`...), level...), `","msg":`...)
	} else {
		b = append(append(append(b, "level="...), level...), " msg="...)
	}
	if b, ok = h.appendString(b, r.Message); !ok {
		return nil, false
	}
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "" { // slog drops some of these
			ok = false
			return false
		}
		if b, ok = h.appendKey(b, a.Key); ok {
			b, ok = h.appendValue(b, a.Value)
		}
		return ok
	})
	if !ok {
		return nil, false
	}
	if h.json {
		b = append(b, '}')
	}
	return append(b, '\n'), true
}

// levelName is slog's name of the four named levels; any other (INFO+2) is slog's to
// spell.
func levelName(l slog.Level) (string, bool) {
	switch l {
	case slog.LevelDebug:
		return "DEBUG", true
	case slog.LevelInfo:
		return "INFO", true
	case slog.LevelWarn:
		return "WARN", true
	case slog.LevelError:
		return "ERROR", true
	}
	return "", false
}

// appendKey appends the separator and key.
func (h *Handler) appendKey(b []byte, key string) ([]byte, bool) {
	b, ok := h.appendString(append(b, h.sep), key)
	if h.json {
		return append(b, ':'), ok
	}
	return append(b, '='), ok
}

func (h *Handler) appendValue(b []byte, v slog.Value) ([]byte, bool) {
	switch v.Kind() {
	case slog.KindString:
		return h.appendString(b, v.String())
	case slog.KindInt64:
		return strconv.AppendInt(b, v.Int64(), 10), true
	case slog.KindUint64:
		return strconv.AppendUint(b, v.Uint64(), 10), true
	case slog.KindBool:
		return strconv.AppendBool(b, v.Bool()), true
	case slog.KindDuration:
		if h.json {
			return strconv.AppendInt(b, int64(v.Duration()), 10), true // as json.Marshal does
		}
		return append(b, v.Duration().String()...), true
	}
	return nil, false
}

// appendTime writes t as slog does: RFC 3339 with nanoseconds in JSON, with
// milliseconds in text. The part before the fraction and the zone after it change
// once a second; they are formatted then and reused (time.Time's formatting was a
// quarter of an access line's cost).
func (h *Handler) appendTime(b []byte, t time.Time) ([]byte, bool) {
	st := h.stamp.Load()
	if st == nil || st.unix != t.Unix() || st.loc != t.Location() {
		var ok bool
		if st, ok = newStamp(t); !ok {
			return nil, false // such a year is slog's to write (in JSON, as an error)
		}
		h.stamp.Store(st)
	}
	ns := t.Nanosecond()
	if !h.json {
		// slog's appendRFC3339Millis: always three digits, truncated.
		ms := ns / 1e6
		b = append(b, st.head...)
		b = append(b, '.', byte('0'+ms/100), byte('0'+ms/10%10), byte('0'+ms%10))
		return append(b, st.zone...), true
	}
	b = append(append(b, '"'), st.head...)
	if ns != 0 { // RFC3339Nano: the fraction without its trailing zeros, if any
		var frac [10]byte
		frac[0] = '.'
		for i := 9; i > 0; i-- {
			frac[i] = byte('0' + ns%10)
			ns /= 10
		}
		n := 10
		for frac[n-1] == '0' {
			n--
		}
		b = append(b, frac[:n]...)
	}
	return append(append(b, st.zone...), '"'), true
}

// stamp is what a time's line holds that changes once a second.
type stamp struct {
	unix int64
	loc  *time.Location
	head string // 2006-01-02T15:04:05
	zone string // Z07:00
}

// newStamp formats t's second, or reports false for a year outside 0-9999, which has
// no fixed-width RFC 3339 form.
func newStamp(t time.Time) (*stamp, bool) {
	if y := t.Year(); y < 0 || y >= 10000 {
		return nil, false
	}
	s := t.Truncate(time.Second).Format("2006-01-02T15:04:05Z07:00")
	const headLen = len("2006-01-02T15:04:05")
	return &stamp{unix: t.Unix(), loc: t.Location(), head: s[:headLen], zone: s[headLen:]}, true
}

// appendString appends s as slog does, or reports false when s is not ASCII: in
// JSON escaped and quoted; in text bare, or quoted by strconv when it is empty or
// holds a space, an '=' or a character JSON would escape other than a backslash.
func (h *Handler) appendString(b []byte, s string) ([]byte, bool) {
	if h.json {
		b = append(b, '"')
		start := 0
		for i := 0; i < len(s); i++ {
			c := s[i]
			if jsonBare[c] {
				continue
			}
			if c >= utf8.RuneSelf {
				return nil, false
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			start = i + 1
		}
		b = append(b, s[start:]...)
		return append(b, '"'), true
	}
	quote := s == ""
	for i := 0; i < len(s); i++ {
		if c := s[i]; !textBare[c] {
			if c >= utf8.RuneSelf {
				return nil, false
			}
			quote = true
		}
	}
	if quote {
		return strconv.AppendQuote(b, s), true
	}
	return append(b, s...), true
}

const hex = "0123456789abcdef"

// jsonBare holds the bytes slog writes in a JSON string as they are: ASCII but
// control characters, '"' and '\\'. textBare holds those it writes in text without
// quoting the string: the same, with '\\' and without space and '='.
var jsonBare, textBare = func() (j, t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		j[c] = c != '"' && c != '\\'
		t[c] = j[c] && c != ' ' && c != '='
	}
	t['\\'] = true
	return j, t
}()
