package logline_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/inferd/inferd/internal/logline"
)

// pieces of strings chosen for what slog quotes or escapes differently: nothing at
// all, space, '=', quotes, backslashes, control characters, DEL, HTML, non-ASCII
// and invalid UTF-8.
var pieces = []string{"", "a", "request", "/jobs/{job_id}", "POST", "9f86d081884c7d65", " ", "=", `"`, `\`,
	"\n", "\r", "\t", "\x01", "\x1f", "\x7f", "<>&", "é", "\u2028", "\xff", "k=v w", "😀", "-_.:/"}

func randomString(rng *rand.Rand) string {
	var sb strings.Builder
	for range rng.IntN(4) {
		sb.WriteString(pieces[rng.IntN(len(pieces))])
	}
	return sb.String()
}

func randomAttr(rng *rand.Rand) slog.Attr {
	key := randomString(rng)
	if rng.IntN(3) > 0 {
		key = []string{"request_id", "route", "status", "duration", "key id", "a=b"}[rng.IntN(6)]
	}
	switch rng.IntN(13) {
	case 11: // floats at the edges of JSON's formats, and those JSON cannot hold
		return slog.Float64(key, []float64{0, math.Copysign(0, -1), 1e-7, 1e-6, 5e20, 1e21, -1.5e300, 0.061, 1e6, math.NaN(), math.Inf(1), math.Inf(-1)}[rng.IntN(12)])
	case 12: // durations from a nanosecond to days, both signs
		return slog.Duration(key, time.Duration(rng.Int64N(1<<50)>>rng.IntN(50))*time.Duration(1-2*rng.IntN(2)))
	case 0:
		return slog.Int(key, rng.IntN(2000)-1000)
	case 1:
		return slog.Uint64(key, rng.Uint64())
	case 2:
		return slog.Bool(key, rng.IntN(2) == 0)
	case 3:
		return slog.Duration(key, time.Duration(rng.Int64N(int64(time.Hour)))-time.Minute)
	case 4:
		return slog.Float64(key, rng.Float64()*1e6)
	case 5:
		return slog.Time(key, time.Unix(rng.Int64N(1<<32), rng.Int64N(1e9)))
	case 6:
		return slog.Any(key, errors.New(randomString(rng)))
	case 7:
		return slog.Group(key, slog.String("inner", randomString(rng)))
	default:
		return slog.String(key, randomString(rng))
	}
}

func randomRecord(rng *rand.Rand) slog.Record {
	t := time.Time{}
	switch rng.IntN(6) {
	case 0: // zero: no time key
	case 1:
		t = time.Date(2026, 11, 25, 17, 18, 47, 0, time.UTC) // whole seconds: trailing zeros
	case 2: // one second in three zones: the handler's formatted second is reused, or not
		zones := []*time.Location{time.UTC, time.Local, time.FixedZone("", -5*3600)}
		t = time.Date(2026, 11, 25, 17, 18, 48, rng.IntN(1e9)/(1+rng.IntN(1e6)), time.UTC).In(zones[rng.IntN(3)])
	case 3: // a year RFC 3339 cannot write: slog's JSON writes an error in its place
		t = time.Date(10000+rng.IntN(2), 1, 2, 3, 4, 5, 6, time.UTC)
	default:
		t = time.Unix(1_700_000_000+rng.Int64N(1e8), rng.Int64N(1e9)).In(time.FixedZone("", 3600*(rng.IntN(5)-2)))
	}
	levels := []slog.Level{slog.LevelDebug, slog.LevelInfo, slog.LevelWarn, slog.LevelError, slog.LevelInfo + 2}
	r := slog.NewRecord(t, levels[rng.IntN(len(levels))], randomString(rng), 0)
	for range rng.IntN(9) {
		r.AddAttrs(randomAttr(rng))
	}
	return r
}

// TestSameBytesAsSlog: every record comes out exactly as slog's own handler writes
// it with logline.MillisDurations, whichever path it takes.
func TestSameBytesAsSlog(t *testing.T) {
	for _, json := range []bool{false, true} {
		t.Run(fmt.Sprintf("json=%v", json), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, 2))
			var got, want bytes.Buffer
			h := logline.New(&got, json, nil)
			// slog's own, with the one option the handler always applies.
			opts := &slog.HandlerOptions{ReplaceAttr: logline.MillisDurations}
			var ref slog.Handler = slog.NewTextHandler(&want, opts)
			if json {
				ref = slog.NewJSONHandler(&want, opts)
			}
			for i := range 20000 {
				r := randomRecord(rng)
				got.Reset()
				want.Reset()
				if err := h.Handle(context.Background(), r.Clone()); err != nil {
					t.Fatal(err)
				}
				if err := ref.Handle(context.Background(), r); err != nil {
					t.Fatal(err)
				}
				if got.String() != want.String() {
					t.Fatalf("record %d:\n got %q\nwant %q", i, got.String(), want.String())
				}
			}
		})
	}
}

// TestAccessLine is the line the access log writes on every request, in both formats.
func TestAccessLine(t *testing.T) {
	r := slog.NewRecord(time.Date(2026, 11, 25, 17, 18, 47, 610_123_456, time.UTC), slog.LevelInfo, "request", 0)
	r.AddAttrs(slog.String("request_id", "b2c86248a88f3c05ff5e5b00ffd38229"), slog.String("method", "POST"),
		slog.String("operation", "predict"), slog.String("route", "/predict"), slog.Int("status", 200),
		slog.Duration("duration", 61*time.Microsecond), slog.String("key_id", "dev"))
	for _, tc := range []struct {
		json bool
		want string
	}{
		{false, "time=2026-11-25T17:18:47.610Z level=INFO msg=request request_id=b2c86248a88f3c05ff5e5b00ffd38229 method=POST operation=predict route=/predict status=200 duration_ms=0.061 key_id=dev\n"},
		{true, `{"time":"2026-11-25T17:18:47.610123456Z","level":"INFO","msg":"request","request_id":"b2c86248a88f3c05ff5e5b00ffd38229","method":"POST","operation":"predict","route":"/predict","status":200,"duration_ms":0.061,"key_id":"dev"}` + "\n"},
	} {
		var b bytes.Buffer
		if err := logline.New(&b, tc.json, nil).Handle(context.Background(), r); err != nil {
			t.Fatal(err)
		}
		if b.String() != tc.want {
			t.Errorf("json=%v:\n got %q\nwant %q", tc.json, b.String(), tc.want)
		}
	}
}

// TestOptions: the level filters as slog's does, and options only slog's handler
// implements, or a logger made With attributes, are slog's handler at work.
func TestOptions(t *testing.T) {
	upper := func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.MessageKey {
			a.Value = slog.StringValue(strings.ToUpper(a.Value.String()))
		}
		return a
	}
	for _, tc := range []struct {
		name string
		opts *slog.HandlerOptions
		log  func(*slog.Logger)
		want string
	}{
		{"level", &slog.HandlerOptions{Level: slog.LevelWarn}, func(l *slog.Logger) { l.Info("dropped"); l.Warn("kept") }, "level=WARN msg=kept\n"},
		{"replace attr", &slog.HandlerOptions{ReplaceAttr: upper}, func(l *slog.Logger) { l.Info("quiet") }, "level=INFO msg=QUIET\n"},
		{"with", nil, func(l *slog.Logger) { l.With("component", "queue").Info("started", "n", 1) }, "level=INFO msg=started component=queue n=1\n"},
		{"group", nil, func(l *slog.Logger) { l.WithGroup("g").Info("m", "n", 1) }, "level=INFO msg=m g.n=1\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			tc.log(slog.New(noTime{logline.New(&b, false, tc.opts)}))
			if b.String() != tc.want {
				t.Errorf("got %q, want %q", b.String(), tc.want)
			}
		})
	}
}

// noTime drops records' times, so that lines can be compared whole.
type noTime struct{ *logline.Handler }

func (h noTime) Handle(ctx context.Context, r slog.Record) error {
	r.Time = time.Time{}
	return h.Handler.Handle(ctx, r)
}

func (h noTime) WithAttrs(as []slog.Attr) slog.Handler { return noTimeAny{h.Handler.WithAttrs(as)} }
func (h noTime) WithGroup(g string) slog.Handler       { return noTimeAny{h.Handler.WithGroup(g)} }

type noTimeAny struct{ slog.Handler }

func (h noTimeAny) Handle(ctx context.Context, r slog.Record) error {
	r.Time = time.Time{}
	return h.Handler.Handle(ctx, r)
}

// BenchmarkAccessLine compares the access log's line through this handler and
// through slog's.
func BenchmarkAccessLine(b *testing.B) {
	r := slog.NewRecord(time.Now(), slog.LevelInfo, "request", 0)
	r.AddAttrs(slog.String("request_id", "b2c86248a88f3c05ff5e5b00ffd38229"), slog.String("method", "POST"),
		slog.String("operation", "predict"), slog.String("route", "/predict"), slog.Int("status", 200),
		slog.Duration("duration", 61*time.Microsecond), slog.String("key_id", "dev"))
	for _, json := range []bool{false, true} {
		handlers := map[string]slog.Handler{"logline": logline.New(io.Discard, json, nil)}
		if json {
			handlers["slog"] = slog.NewJSONHandler(io.Discard, nil)
		} else {
			handlers["slog"] = slog.NewTextHandler(io.Discard, nil)
		}
		for name, h := range handlers {
			b.Run(fmt.Sprintf("json=%v/%s", json, name), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					_ = h.Handle(context.Background(), r)
				}
			})
		}
	}
}

// TestDurationsInMilliseconds: a duration is key_ms, its milliseconds to the
// microsecond as a plain number, the same in text and JSON, and the same whether the
// fast path or slog's handler writes it (a logger made With attributes).
func TestDurationsInMilliseconds(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{61 * time.Microsecond, "0.061"},
		{1500 * time.Millisecond, "1500"},
		{2 * time.Hour, "7200000"}, // not 7.2e+06
		{1234567891 * time.Nanosecond, "1234.568"},
		{400 * time.Nanosecond, "0"},
		{-2500 * time.Microsecond, "-2.5"},
		{-400 * time.Nanosecond, "0"},
		{0, "0"},
		{time.Duration(math.MinInt64), "-9223372036854.775"},
		{time.Duration(math.MaxInt64), "9223372036854.775"},
	} {
		for _, json := range []bool{false, true} {
			t.Run(fmt.Sprintf("%v/json=%v", tc.d, json), func(t *testing.T) {
				want := "level=INFO msg=m duration_ms=" + tc.want + "\n"
				if json {
					want = `{"level":"INFO","msg":"m","duration_ms":` + tc.want + "}\n"
				}
				var fast, slow bytes.Buffer
				slog.New(noTime{logline.New(&fast, json, nil)}).Info("m", "duration", tc.d)
				slog.New(noTime{logline.New(&slow, json, nil)}).With("duration", tc.d).Info("m")
				if fast.String() != want || slow.String() != want {
					t.Errorf("got %q and, With, %q; want %q", fast.String(), slow.String(), want)
				}
			})
		}
	}
}

// TestAccessLineAllocations: writing the access line allocates nothing. Under the
// race detector sync.Pool drops a quarter of the buffers put back, half an allocation
// a line on average, which AllocsPerRun's whole number rounds away; one allocation of
// every line's own (a boxed value, a key built by concatenation) still shows.
func TestAccessLineAllocations(t *testing.T) {
	r := slog.NewRecord(time.Now(), slog.LevelInfo, "request", 0)
	r.AddAttrs(slog.String("request_id", "b2c86248a88f3c05ff5e5b00ffd38229"), slog.String("method", "POST"),
		slog.String("operation", "predict"), slog.String("route", "/predict"), slog.Int("status", 200),
		slog.Duration("duration", 61*time.Microsecond), slog.String("key_id", "dev"))
	for _, json := range []bool{false, true} {
		h := logline.New(io.Discard, json, nil)
		if n := testing.AllocsPerRun(1000, func() { _ = h.Handle(context.Background(), r) }); n != 0 {
			t.Errorf("json=%v: %v allocations per line", json, n)
		}
	}
}
