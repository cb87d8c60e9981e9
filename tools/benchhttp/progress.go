package main

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// progress draws one line on stderr, redrawn in place: which case of how many, a bar of
// the current case's time (or request count), and its rate so far.
type progress struct {
	w     io.Writer
	total int // measured steps of the run
	done  int

	mu   sync.Mutex
	stop chan struct{}
	wg   sync.WaitGroup
}

func newProgress(w io.Writer) *progress { return &progress{w: w} }

// watch shows label with a bar filling over d while the load counts into n.
func (p *progress) watch(label string, n *atomic.Int64, d time.Duration) {
	begin := time.Now()
	p.run(func() string {
		el := time.Since(begin)
		frac := float64(el) / float64(d)
		return fmt.Sprintf("%s %s %.1fs/%.1fs %s/s", label, bar(frac), min(el, d).Seconds(), d.Seconds(), rate(float64(n.Load())/el.Seconds()))
	})
}

// count shows label with a bar filling as n reaches of.
func (p *progress) count(label string, n *atomic.Int64, of int64) {
	begin := time.Now()
	p.run(func() string {
		done := n.Load()
		return fmt.Sprintf("%s %s %d/%d %s/s", label, bar(float64(done)/float64(of)), done, of, rate(float64(done)/time.Since(begin).Seconds()))
	})
}

// show shows a fixed label.
func (p *progress) show(label string) { p.run(func() string { return label }) }

// step marks one measured case and connection count as done.
func (p *progress) step() {
	p.mu.Lock()
	p.done++
	p.mu.Unlock()
}

func (p *progress) run(line func() string) {
	if p.w == nil {
		return
	}
	p.halt()
	p.mu.Lock()
	p.stop = make(chan struct{})
	stop := p.stop
	p.mu.Unlock()
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		for {
			p.mu.Lock()
			prefix := ""
			if p.total > 0 {
				prefix = fmt.Sprintf("[%d/%d] ", min(p.done+1, p.total), p.total)
			}
			p.mu.Unlock()
			// \033[K clears what a longer previous line left behind.
			fmt.Fprintf(p.w, "\r%s%s\033[K", prefix, line())
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
}

func (p *progress) halt() {
	p.mu.Lock()
	stop := p.stop
	p.stop = nil
	p.mu.Unlock()
	if stop != nil {
		close(stop)
		p.wg.Wait()
	}
}

// finish stops the drawing and ends the line.
func (p *progress) finish() {
	if p.w == nil {
		return
	}
	p.halt()
	fmt.Fprintln(p.w)
}

func bar(frac float64) string {
	const width = 24
	full := int(max(0, min(1, frac)) * width)
	return "[" + strings.Repeat("#", full) + strings.Repeat(".", width-full) + "]"
}
