package s3

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/inferd/inferd/internal/store"
)

// body is an object's content as GetObject streams it. A connection cut or gone
// silent in the middle fails a Read with ErrUnavailable, so that a download knows to
// resume from where it stopped.
type body struct {
	rc   io.ReadCloser
	name string
}

func (b *body) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if err != nil && err != io.EOF && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
		err = fmt.Errorf("%s: reading: %w: %w", b.name, store.ErrUnavailable, err)
	}
	return n, err
}

func (b *body) Close() error { return b.rc.Close() }
