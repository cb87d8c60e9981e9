package logbuf

import (
	"context"
	"log/slog"
)

// urgent is a slog.Handler that flushes its Writer after each record at or above its
// level, so that warnings and errors are out at once (and not lost with the buffer if
// the process then dies) while the routine lines wait for company.
type urgent struct {
	slog.Handler
	w     *Writer
	level slog.Leveler
}

// Urgent wraps h, which writes to w, so that records at or above level are flushed
// as soon as they are written.
func Urgent(h slog.Handler, w *Writer, level slog.Leveler) slog.Handler {
	return &urgent{Handler: h, w: w, level: level}
}

func (u *urgent) Handle(ctx context.Context, r slog.Record) error {
	err := u.Handler.Handle(ctx, r)
	if r.Level >= u.level.Level() {
		if ferr := u.w.Flush(); err == nil {
			err = ferr
		}
	}
	return err
}

func (u *urgent) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &urgent{Handler: u.Handler.WithAttrs(attrs), w: u.w, level: u.level}
}

func (u *urgent) WithGroup(name string) slog.Handler {
	return &urgent{Handler: u.Handler.WithGroup(name), w: u.w, level: u.level}
}
