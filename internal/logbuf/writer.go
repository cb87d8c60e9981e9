package logbuf

import (
	"io"
	"sync"
	"time"
)

// The values Options left at zero take.
const (
	DefaultSize  = 64 << 10
	DefaultDelay = 100 * time.Millisecond
)

// Options tune a Writer. The zero value is the defaults.
type Options struct {
	// Size is how many buffered bytes make a write at once; 0 means DefaultSize.
	Size int
	// Delay bounds how long a line waits in the buffer; 0 means DefaultDelay.
	Delay time.Duration
}

// Writer buffers what is written to it and passes it on to the underlying writer in
// one write per batch. Each Write is kept whole and in order (a slog handler writes a
// record in one Write), so lines never interleave or tear. Its methods are safe for
// concurrent use.
type Writer struct {
	out   io.Writer
	size  int
	delay time.Duration

	mu     sync.Mutex
	buf    []byte
	timer  *time.Timer // armed while the buffer holds bytes
	closed bool
}

// New returns a Writer in front of out.
func New(out io.Writer, opts Options) *Writer {
	if opts.Size <= 0 {
		opts.Size = DefaultSize
	}
	if opts.Delay <= 0 {
		opts.Delay = DefaultDelay
	}
	w := &Writer{out: out, size: opts.Size, delay: opts.Delay, buf: make([]byte, 0, opts.Size)}
	w.timer = time.AfterFunc(time.Hour, func() { _ = w.Flush() })
	w.timer.Stop()
	return w
}

// Write buffers p. A write that fills the buffer writes it out at once, and returns
// the underlying writer's error; after Close, p is written through unbuffered.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return w.out.Write(p)
	}
	if len(w.buf) == 0 {
		w.timer.Reset(w.delay)
	}
	w.buf = append(w.buf, p...)
	if len(w.buf) >= w.size {
		if err := w.flushLocked(); err != nil {
			return len(p), err
		}
	}
	return len(p), nil
}

// Flush writes out what the buffer holds.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.flushLocked()
}

// Close writes out what the buffer holds and makes later writes go straight through,
// so that a line logged after it (a late error at exit) is not lost either.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.closed = true
	return w.flushLocked()
}

// flushLocked writes the buffer while holding the lock, so that no other line can
// overtake it.
func (w *Writer) flushLocked() error {
	w.timer.Stop()
	if len(w.buf) == 0 {
		return nil
	}
	_, err := w.out.Write(w.buf)
	// A buffer that grew past its size for one huge line is not kept at that size.
	if cap(w.buf) > 4*w.size {
		w.buf = make([]byte, 0, w.size)
	} else {
		w.buf = w.buf[:0]
	}
	return err
}
