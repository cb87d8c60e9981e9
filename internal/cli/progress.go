package cli

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// redrawEvery bounds how often a progress line is redrawn, so a fast batch does not
// spend its time writing to the terminal.
const redrawEvery = 100 * time.Millisecond

// isTerminal reports whether w is a terminal (a character device), where a progress
// line redrawn with \r makes sense.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// progressBar draws `[=====>    ]  5120/10000 items  2345 items/s  eta 2s` on one
// line of stderr.
type progressBar struct {
	w     io.Writer
	total int
	done  int
	start time.Time
	drawn time.Time
	width int // of the line drawn last
	now   func() time.Time
}

func newProgressBar(w io.Writer, total int) *progressBar {
	p := &progressBar{w: w, total: total, now: time.Now}
	p.start = p.now()
	return p
}

// add counts n more items done and redraws when it is time; finish draws the end.
func (p *progressBar) add(n int) {
	if p == nil {
		return
	}
	p.done += n
	if now := p.now(); now.Sub(p.drawn) >= redrawEvery && p.done < p.total {
		p.drawn = now
		s := p.line(now)
		p.width = len(s)
		fmt.Fprint(p.w, "\r"+s)
	}
}

// clear wipes the line drawn so far, so that a message can take its place; the bar is
// drawn again at the next add.
func (p *progressBar) clear() {
	if p == nil || p.width == 0 {
		return
	}
	fmt.Fprint(p.w, "\r"+strings.Repeat(" ", p.width)+"\r")
	p.drawn, p.width = time.Time{}, 0
}

// finish draws the final state and ends the line.
func (p *progressBar) finish() {
	if p == nil {
		return
	}
	fmt.Fprint(p.w, "\r"+p.line(p.now())+"\n")
}

// line renders the bar at time now.
func (p *progressBar) line(now time.Time) string {
	const width = 30
	frac := 1.0
	if p.total > 0 {
		frac = float64(p.done) / float64(p.total)
	}
	filled := int(frac * width)
	bar := strings.Repeat("=", filled)
	if filled < width {
		bar += ">" + strings.Repeat(" ", width-filled-1)
	}
	elapsed := now.Sub(p.start).Seconds()
	rate := 0.0
	if elapsed > 0 {
		rate = float64(p.done) / elapsed
	}
	digits := len(fmt.Sprint(p.total))
	s := fmt.Sprintf("[%s] %*d/%d items  %.0f items/s", bar, digits, p.done, p.total, rate)
	if p.done < p.total && rate > 0 {
		s += fmt.Sprintf("  eta %s", (time.Duration(float64(p.total-p.done) / rate * float64(time.Second))).Round(time.Second))
	} else if p.done == p.total {
		s += fmt.Sprintf("  in %s", now.Sub(p.start).Round(time.Millisecond))
	}
	return s + "   " // room to cover a longer previous line
}

// jobProgress shows a job's status and how long it has been going until it ends.
type jobProgress struct {
	w     io.Writer
	id    string
	start time.Time
	now   func() time.Time
}

func (p *jobProgress) show(status string) {
	if p == nil {
		return
	}
	fmt.Fprintf(p.w, "\r%s", p.line(status, p.now()))
}

func (p *jobProgress) end(status string) {
	if p == nil {
		return
	}
	fmt.Fprintf(p.w, "\r%s\n", p.line(status, p.now()))
}

func (p *jobProgress) line(status string, now time.Time) string {
	return fmt.Sprintf("job %s  %-9s  %s   ", p.id, status, now.Sub(p.start).Round(100*time.Millisecond))
}
