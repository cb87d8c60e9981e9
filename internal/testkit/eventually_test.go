package testkit

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// recorder is a testing.TB whose Fatalf records the message and ends the goroutine,
// as the real one does.
type recorder struct {
	testing.TB
	msg string
}

func (r *recorder) Helper() {}

func (r *recorder) Fatalf(format string, args ...any) {
	r.msg = fmt.Sprintf(format, args...)
	panic(r)
}

// run calls f with a recorder and returns what it failed with, "" if nothing.
func run(f func(tb testing.TB)) (msg string) {
	r := &recorder{}
	defer func() {
		if p := recover(); p != nil && p != r {
			panic(p)
		}
		msg = r.msg
	}()
	f(r)
	return ""
}

func TestEventually(t *testing.T) {
	tests := []struct {
		name string
		f    func(tb testing.TB)
		want string // in the failure's message; "" for none
	}{
		{"holds at once", func(tb testing.TB) { Eventually(tb, time.Second, func() bool { return true }) }, ""},
		{"holds after a few polls", func(tb testing.TB) {
			n := 0
			Eventually(tb, time.Minute, func() bool { n++; return n == 5 })
		}, ""},
		{"never holds", func(tb testing.TB) {
			Eventually(tb, 20*time.Millisecond, func() bool { return false }, "job %s done", "j1")
		}, "not within 20ms: job j1 done"},
		{"a message argument read when it fails", func(tb testing.TB) {
			n := 0
			Eventually(tb, 20*time.Millisecond, func() bool { n++; return false }, "polled %s", func() string { return "more than once" })
		}, "polled more than once"},
		{"what the condition said last", func(tb testing.TB) {
			n := 0
			Eventually(tb, 20*time.Millisecond, func() (bool, string) { n++; return false, fmt.Sprint("try ", n) }, "ready")
		}, "ready (last: try "},
		{"no message", func(tb testing.TB) { Eventually(tb, time.Millisecond, func() bool { return false }) }, "the condition"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := run(tt.f)
			if tt.want == "" && got != "" || !strings.Contains(got, tt.want) {
				t.Errorf("failed with %q, want %q", got, tt.want)
			}
		})
	}
}

func TestSameJSON(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{`{"a":1,"b":[true,null]}`, `{ "b": [true, null], "a": 1 }`, true},
		{`"\u003c"`, `"<"`, true},
		{`12345678901234567890`, `12345678901234567890`, true},
		{`12345678901234567890`, `12345678901234567891`, false},
		{`1.0`, `1`, false},
		{`{"a":1}`, `{"a":1,"b":2}`, false},
		{`{`, `{`, false},
	}
	for _, tt := range tests {
		t.Run(tt.a+" "+tt.b, func(t *testing.T) {
			if got := SameJSON([]byte(tt.a), []byte(tt.b)); got != tt.want {
				t.Errorf("SameJSON = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestClock(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	c := NewClock(t0)
	c.Advance(time.Hour)
	if got := c.Now(); !got.Equal(t0.Add(time.Hour)) {
		t.Errorf("Now %v, want %v", got, t0.Add(time.Hour))
	}
}
