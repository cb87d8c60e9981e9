package dir

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/inferd/inferd/internal/store"
)

// Store reads the files below a directory. Their ETag is made of what the file system
// keeps of each file (device, inode, size, modification and change times), since it
// keeps no digest: a file written again in place with content of the same length
// within the file system's clock tick (a few milliseconds) keeps its ETag, which a
// tool that writes a new file and renames it over the old one never does.
type Store struct {
	root string
}

// New returns the Store of the directory root, which must exist.
func New(root string) (*Store, error) {
	fi, err := os.Stat(root)
	if err != nil {
		return nil, classify(root, err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("%s: not a directory", root)
	}
	return &Store{root: filepath.Clean(root)}, nil
}

// String is the directory, as it was given.
func (s *Store) String() string { return s.root }

// List walks the directory below prefix. Files are listed, and so are symbolic links
// to files; directories are walked, but not through a link.
func (s *Store) List(ctx context.Context, prefix string) ([]store.Object, error) {
	top := s.root
	if p := strings.TrimSuffix(prefix, "/"); p != "" {
		if !fs.ValidPath(p) {
			return nil, fmt.Errorf("%s: prefix %q: %w", s.root, prefix, store.ErrNotFound)
		}
		top = filepath.Join(s.root, filepath.FromSlash(p))
	}
	var objs []store.Object
	err := filepath.WalkDir(top, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == top && errors.Is(err, fs.ErrNotExist) {
				return fs.SkipAll // an empty prefix
			}
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		fi, err := os.Stat(p) // through a link
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil // deleted since it was listed, or a dangling link
			}
			return err
		}
		if !fi.Mode().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(s.root, p)
		if err != nil {
			return err
		}
		objs = append(objs, object(filepath.ToSlash(rel), fi))
		return nil
	})
	if err != nil {
		return nil, classify(s.root, err)
	}
	// WalkDir goes by name within each directory, which is not the order of keys:
	// "a.b" comes before "a/b".
	slices.SortFunc(objs, func(a, b store.Object) int { return strings.Compare(a.Key, b.Key) })
	return objs, nil
}

// Get opens the file of key.
func (s *Store) Get(ctx context.Context, key string, offset int64, etag string) (io.ReadCloser, store.Object, error) {
	if !fs.ValidPath(key) || key == "." {
		return nil, store.Object{}, fmt.Errorf("%s: %q: %w", s.root, key, store.ErrNotFound)
	}
	if err := ctx.Err(); err != nil {
		return nil, store.Object{}, err
	}
	name := filepath.Join(s.root, filepath.FromSlash(key))
	f, err := os.Open(name)
	if err != nil {
		return nil, store.Object{}, classify(name, err)
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = fmt.Errorf("not a file: %w", store.ErrNotFound)
	}
	if err != nil {
		_ = f.Close()
		return nil, store.Object{}, classify(name, err)
	}
	o := object(key, fi)
	if etag != "" && etag != o.ETag {
		_ = f.Close()
		return nil, store.Object{}, fmt.Errorf("%s: ETag %s, was %s: %w", name, o.ETag, etag, store.ErrChanged)
	}
	if offset > 0 {
		if _, err := f.Seek(offset, io.SeekStart); err != nil {
			_ = f.Close()
			return nil, store.Object{}, classify(name, err)
		}
	}
	return f, o, nil
}

func object(key string, fi fs.FileInfo) store.Object {
	etag := fmt.Sprintf("%x-%x", fi.Size(), fi.ModTime().UnixNano())
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		etag = fmt.Sprintf("%x-%x-%s-%x.%x", st.Dev, st.Ino, etag, st.Ctim.Sec, st.Ctim.Nsec)
	}
	return store.Object{Key: path.Clean(key), Size: fi.Size(), ETag: etag, Modified: fi.ModTime()}
}

// classify wraps err with the sentinel a caller acts on.
func classify(name string, err error) error {
	switch {
	case errors.Is(err, store.ErrNotFound), errors.Is(err, store.ErrChanged), errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("%s: %w", name, err)
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s: %w", name, store.ErrNotFound)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("%w: %w", store.ErrDenied, err)
	default:
		return fmt.Errorf("%w: %w", store.ErrUnavailable, err)
	}
}
