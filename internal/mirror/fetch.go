package mirror

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"time"

	"github.com/inferd/inferd/internal/store"
)

// errCut: a read ended before the object did (a connection reset, a short body). The
// bytes read so far are kept and the read resumes from where it stopped.
var errCut = errors.New("read cut short")

// maxRestarts bounds how often a download starts over because its object was
// overwritten while it was read: an object rewritten without end is not one to copy.
const maxRestarts = 3

// download reads obj into the cache, streaming it to a file of the cache's directory
// through the hash (never whole in memory), and returns what it read. A read cut short
// resumes from its offset, pinned to the object's ETag; an ErrUnavailable or a cut is
// tried again after a backoff, up to Attempts times in a row without progress. An
// object overwritten while it is read (ErrChanged) is read again from the start when
// restart is set, for a version whose digests will check what was read; otherwise the
// error is returned, since a version taken on the stability of its listing must not be
// taken from objects newer than that listing. When want is not "", content of another
// digest fails with ErrDigestMismatch and stays out of the cache.
func (p *poll) download(ctx context.Context, obj store.Object, want string, restart bool) (file, error) {
	f, err := os.CreateTemp(p.m.local.tmp, "get-")
	if err != nil {
		return file{}, err
	}
	defer os.Remove(f.Name()) // once in the cache, a no-op
	defer f.Close()
	d := &transfer{p: p, f: f, h: sha256.New(), key: obj.Key, etag: obj.ETag, size: obj.Size}
	failures, restarts := 0, 0
	for {
		n, err := d.once(ctx)
		if err == nil {
			break
		}
		switch {
		case errors.Is(err, store.ErrChanged) && restart && restarts < maxRestarts:
			restarts++
			if err := d.reset(); err != nil {
				return file{}, err
			}
			p.m.log.Debug("an object changed while it was read: reading it again from the start", "key", obj.Key, "error", err)
			continue
		case ctx.Err() != nil:
			return file{}, ctx.Err()
		case errors.Is(err, store.ErrUnavailable), errors.Is(err, errCut):
			if n > 0 {
				failures = 0
			}
			failures++
			if failures >= p.m.opts.Attempts {
				return file{}, fmt.Errorf("reading %s: gave up after %d attempts: %w", obj.Key, failures, err)
			}
			wait := p.m.backoff(failures)
			p.m.log.Debug("reading an object failed: trying again", "key", obj.Key, "offset", d.off, "in", wait, "error", err)
			if err := sleep(ctx, wait); err != nil {
				return file{}, err
			}
		default:
			return file{}, fmt.Errorf("reading %s: %w", obj.Key, err)
		}
	}
	got := file{ETag: d.etag, Size: d.size, SHA256: hex.EncodeToString(d.h.Sum(nil))}
	if want != "" && got.SHA256 != want {
		return got, ErrDigestMismatch
	}
	// Synced before the rename: a cache file's name must never outlive its content
	// in a crash.
	if err := f.Sync(); err != nil {
		return file{}, err
	}
	if err := f.Close(); err != nil {
		return file{}, err
	}
	if err := p.m.local.cache.put(f.Name(), got.SHA256); err != nil {
		return file{}, err
	}
	return got, nil
}

// transfer is one object's download, across its attempts.
type transfer struct {
	p    *poll
	f    *os.File
	h    hash.Hash
	key  string
	etag string // "" after a restart, until a Get says which content it reads
	size int64
	off  int64 // bytes in f and through h
}

// once reads from the offset on, with one Get, and returns the bytes it added.
func (d *transfer) once(ctx context.Context) (int64, error) {
	d.p.res.Gets++
	rc, o, err := d.p.m.opts.Store.Get(ctx, d.key, d.off, d.etag)
	if err != nil {
		return 0, err
	}
	defer rc.Close()
	if d.etag == "" {
		d.etag, d.size = o.ETag, o.Size
	}
	// One byte more than the object has left tells a longer object from a whole one.
	n, err := io.CopyBuffer(io.MultiWriter(d.f, d.h), io.LimitReader(rc, d.size-d.off+1), d.p.buf)
	d.off += n
	d.p.res.BytesDownloaded += n
	switch {
	case err != nil && (errors.Is(err, store.ErrChanged) || errors.Is(err, store.ErrNotFound) || errors.Is(err, store.ErrDenied) || ctx.Err() != nil):
		return n, err
	case err != nil:
		return n, fmt.Errorf("%w at byte %d of %d: %w", errCut, d.off, d.size, err)
	case d.off > d.size:
		return n, fmt.Errorf("%w: longer than the %d bytes it was listed with", store.ErrChanged, d.size)
	case d.off < d.size:
		return n, fmt.Errorf("%w at byte %d of %d: the body ended early", errCut, d.off, d.size)
	}
	return n, nil
}

// reset empties the download, to read the object again from its start.
func (d *transfer) reset() error {
	if _, err := d.f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	if err := d.f.Truncate(0); err != nil {
		return err
	}
	d.h.Reset()
	d.off, d.etag, d.size = 0, "", 0
	return nil
}

// sleep waits d, or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
