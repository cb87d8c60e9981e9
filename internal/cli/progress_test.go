package cli

import (
	"strings"
	"testing"
	"time"
)

func TestProgressLine(t *testing.T) {
	start := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name    string
		total   int
		done    int
		elapsed time.Duration
		want    string
	}{
		{"start", 10000, 0, 0, "[>                             ]     0/10000 items  0 items/s   "},
		{"half way", 10000, 5000, 2 * time.Second, "[===============>              ]  5000/10000 items  2500 items/s  eta 2s   "},
		{"done", 10000, 10000, 4 * time.Second, "[==============================] 10000/10000 items  2500 items/s  in 4s   "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := &progressBar{total: tc.total, done: tc.done, start: start}
			if got := p.line(start.Add(tc.elapsed)); got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

// TestProgressRedraws checks that a bar redraws at most every redrawEvery and draws
// the end once, on its own line.
func TestProgressRedraws(t *testing.T) {
	var b strings.Builder
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	p := &progressBar{w: &b, total: 300, start: now, now: func() time.Time { return now }}
	p.add(100) // first draw
	p.add(100) // same instant: no draw
	now = now.Add(redrawEvery)
	p.add(100) // the last items: finish draws them
	p.finish()
	out := b.String()
	if n := strings.Count(out, "\r"); n != 2 {
		t.Errorf("%d draws, want 2: %q", n, out)
	}
	if !strings.HasSuffix(out, "300/300 items  3000 items/s  in 100ms   \n") {
		t.Errorf("the last draw is %q", out)
	}
}

// TestProgressClears checks that a message can take the bar's place: clear wipes the
// line drawn, does nothing when none is, and the next add draws the bar again at once.
func TestProgressClears(t *testing.T) {
	var b strings.Builder
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	p := &progressBar{w: &b, total: 300, start: now, now: func() time.Time { return now }}
	p.clear() // nothing drawn yet
	if b.Len() != 0 {
		t.Fatalf("clear before a draw wrote %q", b.String())
	}
	p.add(100)
	drawn := strings.TrimPrefix(b.String(), "\r")
	b.Reset()
	p.clear()
	if want := "\r" + strings.Repeat(" ", len(drawn)) + "\r"; b.String() != want {
		t.Errorf("clear wrote %q, want %q", b.String(), want)
	}
	b.Reset()
	p.clear() // wiped already
	p.add(100)
	if !strings.HasPrefix(b.String(), "\r[====================>") {
		t.Errorf("after clear, add wrote %q, want the bar again", b.String())
	}
	var none *progressBar
	none.clear() // no bar (not a terminal): nothing to do, no panic
}
