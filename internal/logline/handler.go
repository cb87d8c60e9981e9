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
// set, else like slog.NewTextHandler(w, opts), with MillisDurations applied to every
// attribute before opts.ReplaceAttr. Each record is one Write, made from the
// goroutine that logs it, so w must be safe for concurrent use (an *os.File or a
// logbuf.Writer is).
func New(w io.Writer, json bool, opts *slog.HandlerOptions) *Handler {
	o := slog.HandlerOptions{}
	if opts != nil {
		o = *opts
	}
	h := &Handler{w: w, json: json, sep: ' ', fast: o.ReplaceAttr == nil && !o.AddSource}
	o.ReplaceAttr = withMillis(o.ReplaceAttr)
	if json {
		h.sep = ','
		h.slow = slog.NewJSONHandler(w, &o)
	} else {
		h.slow = slog.NewTextHandler(w, &o)
	}
	return h
}

// MillisDurations is the slog.HandlerOptions.ReplaceAttr this handler applies to
// every attribute: a duration under key k becomes k_ms, its milliseconds rounded to
// the microsecond, written as a plain decimal number in both formats (duration=61µs
// is duration_ms=0.061; 2h is 7200000, never 7.2e+06). slog writes a duration as Go's
// string in text but as integer nanoseconds in JSON, a number whose unit a reader of
// the log has to know; milliseconds, with the unit in the key, read the same in both
// formats and sum and compare as numbers in a log store.
func MillisDurations(_ []string, a slog.Attr) slog.Attr {
	if a.Value.Kind() == slog.KindDuration {
		return slog.Any(a.Key+"_ms", toMillis(a.Value.Duration()))
	}
	return a
}

// millis is a duration in whole microseconds, written as milliseconds: the integer
// part, then up to three decimals without trailing zeros. slog writes it through
// MarshalText in text and MarshalJSON in JSON, so both formats show the same number,
// which a float64 attribute would not give (strconv's 'g' in text: 1e+06 from a
// thousand seconds on).
type millis int64

func toMillis(d time.Duration) millis { return millis(d.Round(time.Microsecond) / time.Microsecond) }

func (m millis) append(b []byte) []byte {
	us := uint64(m)
	if m < 0 {
		b = append(b, '-')
		us = -us
	}
	b = strconv.AppendUint(b, us/1000, 10)
	frac := us % 1000
	if frac == 0 {
		return b
	}
	digits := [...]byte{'.', byte('0' + frac/100), byte('0' + frac/10%10), byte('0' + frac%10)}
	n := len(digits)
	for digits[n-1] == '0' {
		n--
	}
	return append(b, digits[:n]...)
}

func (m millis) MarshalText() ([]byte, error) { return m.append(nil), nil }

func (m millis) MarshalJSON() ([]byte, error) { return m.append(nil), nil }

// withMillis returns the ReplaceAttr that applies MillisDurations, then next.
func withMillis(next func([]string, slog.Attr) slog.Attr) func([]string, slog.Attr) slog.Attr {
	if next == nil {
		return MillisDurations
	}
	return func(groups []string, a slog.Attr) slog.Attr { return next(groups, MillisDurations(groups, a)) }
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
		if a.Value.Kind() == slog.KindDuration { // MillisDurations
			if b, ok = h.appendMillisKey(b, a.Key); ok {
				b = toMillis(a.Value.Duration()).append(b)
			}
			return ok
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

// appendMillisKey appends the separator and key+"_ms", or reports false when key
// needs quoting or escaping (a key slog's handler then writes, suffix and all).
func (h *Handler) appendMillisKey(b []byte, key string) ([]byte, bool) {
	bare := &textBare
	if h.json {
		bare = &jsonBare
	}
	for i := 0; i < len(key); i++ {
		if !bare[key[i]] {
			return nil, false
		}
	}
	if h.json {
		return append(append(append(b, h.sep, '"'), key...), `_ms":`...), true
	}
	return append(append(append(b, h.sep), key...), "_ms="...), true
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
