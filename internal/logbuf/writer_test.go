package logbuf_test

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/inferd/inferd/internal/logbuf"
	"github.com/inferd/inferd/internal/testkit"
)

// sink records what reaches the underlying writer, one entry per Write.
type sink struct {
	mu     sync.Mutex
	writes []string
}

func (s *sink) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.writes = append(s.writes, string(p))
	return len(p), nil
}

func (s *sink) text() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(s.writes, "")
}

func (s *sink) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.writes)
}

func TestWriter(t *testing.T) {
	tests := []struct {
		name string
		run  func(t *testing.T, out *sink)
	}{
		{"lines wait for company, then go out in one write", func(t *testing.T, out *sink) {
			w := logbuf.New(out, logbuf.Options{Delay: time.Hour})
			for i := range 100 {
				fmt.Fprintf(w, "line %d\n", i)
			}
			if n := out.count(); n != 0 {
				t.Fatalf("%d writes before the buffer filled or a flush; want 0", n)
			}
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
			if n := out.count(); n != 1 {
				t.Errorf("%d writes for a flush; want 1", n)
			}
			if !strings.HasPrefix(out.text(), "line 0\nline 1\n") || !strings.HasSuffix(out.text(), "line 99\n") {
				t.Errorf("lines out of order:\n%s", out.text())
			}
		}},
		{"a line is written within the delay though nothing follows it", func(t *testing.T, out *sink) {
			w := logbuf.New(out, logbuf.Options{Delay: 10 * time.Millisecond})
			defer w.Close()
			fmt.Fprintln(w, "alone")
			testkit.Eventually(t, time.Minute, func() bool { return out.text() == "alone\n" }, "the delayed write")
			fmt.Fprintln(w, "again") // the timer is armed anew for the next batch
			testkit.Eventually(t, time.Minute, func() bool { return out.text() == "alone\nagain\n" }, "the second delayed write")
		}},
		{"a full buffer is written at once", func(t *testing.T, out *sink) {
			w := logbuf.New(out, logbuf.Options{Size: 64, Delay: time.Hour})
			line := strings.Repeat("x", 39) + "\n"
			fmt.Fprint(w, line)
			fmt.Fprint(w, line) // 80 bytes: past 64
			if got := out.text(); got != line+line {
				t.Errorf("written %q; want both lines", got)
			}
		}},
		{"close writes the rest, later lines go straight through", func(t *testing.T, out *sink) {
			w := logbuf.New(out, logbuf.Options{Delay: time.Hour})
			fmt.Fprintln(w, "before")
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			fmt.Fprintln(w, "after")
			if got := out.text(); got != "before\nafter\n" {
				t.Errorf("written %q; want both lines", got)
			}
		}},
		{"concurrent lines stay whole", func(t *testing.T, out *sink) {
			w := logbuf.New(out, logbuf.Options{Size: 1000, Delay: time.Millisecond})
			var wg sync.WaitGroup
			for g := range 8 {
				wg.Go(func() {
					for i := range 500 {
						fmt.Fprintf(w, "goroutine %d line %d %s\n", g, i, strings.Repeat("y", 20))
					}
				})
			}
			wg.Wait()
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSuffix(out.text(), "\n"), "\n")
			if len(lines) != 8*500 {
				t.Fatalf("%d lines; want %d", len(lines), 8*500)
			}
			next := map[string]int{}
			for _, l := range lines {
				var g, i int
				if _, err := fmt.Sscanf(l, "goroutine %d line %d", &g, &i); err != nil || !strings.HasSuffix(l, " "+strings.Repeat("y", 20)) {
					t.Fatalf("torn line %q", l)
				}
				if key := fmt.Sprint(g); i != next[key] {
					t.Fatalf("goroutine %d: line %d after %d", g, i, next[key]-1)
				} else {
					next[key]++
				}
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.run(t, &sink{}) })
	}
}

func TestUrgent(t *testing.T) {
	tests := []struct {
		level     slog.Level
		writtenAt bool // out before a flush
	}{
		{slog.LevelDebug, false},
		{slog.LevelInfo, false},
		{slog.LevelWarn, true},
		{slog.LevelError, true},
	}
	for _, tt := range tests {
		t.Run(tt.level.String(), func(t *testing.T) {
			out := &sink{}
			w := logbuf.New(out, logbuf.Options{Delay: time.Hour})
			log := slog.New(logbuf.Urgent(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug}), w, slog.LevelWarn))
			log = log.With("component", "test").WithGroup("g") // the wrapper survives both
			log.Info("routine")
			log.Log(t.Context(), tt.level, "event", "n", 1)
			got := out.text()
			if tt.writtenAt != strings.Contains(got, "msg=event") {
				t.Errorf("written before a flush: %q; want the %s line there: %v", got, tt.level, tt.writtenAt)
			}
			if tt.writtenAt && !strings.Contains(got, "msg=routine component=test") {
				t.Errorf("an urgent line did not take the routine one before it along: %q", got)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if got := out.text(); !strings.Contains(got, "msg=event component=test g.n=1") {
				t.Errorf("after close: %q", got)
			}
		})
	}
}

func BenchmarkWriter(b *testing.B) {
	line := bytes.Repeat([]byte("x"), 199)
	line = append(line, '\n')
	w := logbuf.New(io.Discard, logbuf.Options{})
	b.ReportAllocs()
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		_, _ = w.Write(line)
	}
}
