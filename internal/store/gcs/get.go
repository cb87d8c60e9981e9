package gcs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"cloud.google.com/go/storage"
	"google.golang.org/api/googleapi"

	"github.com/inferd/inferd/internal/store"
)

// Get reads key from offset. With an etag, the read is of that generation only, told
// twice: the request carries the condition (GCS answers 412 to another generation) and
// the generation the answer says it is of is compared, since an emulator may ignore the
// condition. A read cut short is resumed by the library from where it was, of the same
// generation.
func (s *Store) Get(ctx context.Context, key string, offset int64, etag string) (io.ReadCloser, store.Object, error) {
	name := s.name + "/" + key
	if !fs.ValidPath(key) || key == "." {
		return nil, store.Object{}, fmt.Errorf("%s: %q is not a key: %w", s.name, key, store.ErrNotFound)
	}
	obj := s.bucket.Object(s.prefix + key)
	var want int64
	if etag != "" {
		var err error
		if want, err = strconv.ParseInt(etag, 10, 64); err != nil || want <= 0 {
			return nil, store.Object{}, fmt.Errorf("%s: ETag %q is no generation of this store: %w", name, etag, store.ErrChanged)
		}
		obj = obj.If(storage.Conditions{GenerationMatch: want})
	}
	// The read's context outlives this call (it is the body's), so the timeout is a
	// watchdog rather than a deadline: it bounds the opening here, and each wait for
	// bytes in Read.
	rctx, cancel := context.WithCancel(ctx)
	dog := newWatchdog(s.timeout, cancel)
	dog.arm()
	r, err := obj.NewRangeReader(rctx, offset, -1)
	dog.disarm()
	if err != nil {
		cancel()
		if dog.fired.Load() {
			return nil, store.Object{}, fmt.Errorf("%s: %w: no answer within %s", name, store.ErrUnavailable, s.timeout)
		}
		var gerr *googleapi.Error
		if errors.As(err, &gerr) && gerr.Code == http.StatusRequestedRangeNotSatisfiable {
			return s.atEnd(ctx, obj, key, offset)
		}
		return nil, store.Object{}, s.classify(ctx, name, err)
	}
	o := store.Object{Key: key, Size: r.Attrs.Size, ETag: strconv.FormatInt(r.Attrs.Generation, 10), Modified: r.Attrs.LastModified}
	switch {
	case r.Attrs.Generation <= 0:
		err = fmt.Errorf("%s: %w: the answer names no generation", name, store.ErrUnavailable)
	case etag != "" && r.Attrs.Generation != want:
		err = fmt.Errorf("%s: generation %d, was %s: %w", name, r.Attrs.Generation, etag, store.ErrChanged)
	}
	if err != nil {
		_ = r.Close()
		cancel()
		return nil, store.Object{}, err
	}
	return &body{s: s, ctx: ctx, name: name, r: r, dog: dog, cancel: cancel}, o, nil
}

// atEnd answers a read from an offset at or past the object's end, which GCS refuses
// with a 416, as the read of nothing that it is at the end (a download resumed after
// its last byte), and as an error past it.
func (s *Store) atEnd(ctx context.Context, obj *storage.ObjectHandle, key string, offset int64) (io.ReadCloser, store.Object, error) {
	name := s.name + "/" + key
	var a *storage.ObjectAttrs
	err := s.call(ctx, func(ctx context.Context) (err error) {
		a, err = obj.Attrs(ctx)
		return err
	})
	if err != nil {
		return nil, store.Object{}, s.classify(ctx, name, err)
	}
	if offset > a.Size {
		return nil, store.Object{}, fmt.Errorf("%s: offset %d is past the object's end (%d bytes)", name, offset, a.Size)
	}
	o := store.Object{Key: key, Size: a.Size, ETag: strconv.FormatInt(a.Generation, 10), Modified: a.Updated}
	return io.NopCloser(http.NoBody), o, nil
}

// body is a read's body: its errors are the store's, and a wait for bytes longer than
// the timeout ends it as ErrUnavailable.
type body struct {
	s      *Store
	ctx    context.Context // the caller's
	name   string
	r      *storage.Reader
	dog    *watchdog
	cancel context.CancelFunc
}

func (b *body) Read(p []byte) (int, error) {
	b.dog.arm()
	n, err := b.r.Read(p)
	b.dog.disarm()
	switch {
	case err == nil, err == io.EOF:
		return n, err
	case b.dog.fired.Load() && b.ctx.Err() == nil:
		return n, fmt.Errorf("%s: %w: no bytes for %s", b.name, store.ErrUnavailable, b.s.timeout)
	case errors.Is(err, storage.ErrObjectNotExist):
		// The library resumes a cut read with the generation it began with: gone
		// means overwritten or deleted since.
		return n, fmt.Errorf("%s: %w: the generation being read is gone", b.name, store.ErrChanged)
	}
	return n, b.s.classify(b.ctx, b.name, err)
}

func (b *body) Close() error {
	err := b.r.Close()
	b.cancel()
	return err
}

// watchdog cancels a read's context when it is armed for longer than d.
type watchdog struct {
	d     time.Duration
	t     *time.Timer
	fired atomic.Bool
}

func newWatchdog(d time.Duration, cancel context.CancelFunc) *watchdog {
	w := &watchdog{d: d}
	w.t = time.AfterFunc(d, func() { w.fired.Store(true); cancel() })
	w.t.Stop()
	return w
}

func (w *watchdog) arm()    { w.t.Reset(w.d) }
func (w *watchdog) disarm() { w.t.Stop() }
