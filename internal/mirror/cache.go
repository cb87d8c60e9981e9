package mirror

import (
	"cmp"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// cache is the content-addressed files: dir/<hex SHA-256 of the content>. A file gets
// there only by a rename after its digest was checked, so its name is its content.
// Cache files are read-only: the copy's directories are hard links to them, and a
// write through a link would change every version that shares the file.
type cache struct {
	dir string
}

func (c cache) path(digest string) string { return filepath.Join(c.dir, digest) }

// has reports whether the cache holds digest's file, of size bytes.
func (c cache) has(digest string, size int64) bool {
	fi, err := os.Stat(c.path(digest))
	return err == nil && fi.Mode().IsRegular() && fi.Size() == size
}

// put moves tmp, whose content has digest, into the cache. A file already there has
// the same content and stays.
func (c cache) put(tmp, digest string) error {
	if err := os.Chmod(tmp, 0o444); err != nil {
		return err
	}
	if _, err := os.Stat(c.path(digest)); err == nil {
		return os.Remove(tmp)
	}
	return os.Rename(tmp, c.path(digest))
}

// touch marks digest's file used now: eviction goes least recently used first.
func (c cache) touch(digest string) {
	now := time.Now()
	_ = os.Chtimes(c.path(digest), now, now)
}

// evicted is what an eviction did.
type evicted struct {
	files int
	bytes int64
	// total is what the cache holds after it.
	total int64
}

// evict removes files no version in used needs, least recently used first, until the
// cache holds at most max bytes; max 0 is no bound, and only measures. Files in use
// are never removed, so a cache whose versions alone exceed max stays above it.
func (c cache) evict(max int64, used map[string]bool) (evicted, error) {
	entries, err := os.ReadDir(c.dir)
	if err != nil {
		return evicted{}, err
	}
	type entry struct {
		name string
		size int64
		used time.Time
	}
	var spare []entry
	var ev evicted
	for _, e := range entries {
		fi, err := e.Info()
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return ev, err
		}
		ev.total += fi.Size()
		if !used[e.Name()] {
			spare = append(spare, entry{e.Name(), fi.Size(), fi.ModTime()})
		}
	}
	if max <= 0 || ev.total <= max {
		return ev, nil
	}
	slices.SortFunc(spare, func(a, b entry) int { return cmp.Or(a.used.Compare(b.used), cmp.Compare(a.name, b.name)) })
	for _, e := range spare {
		if ev.total <= max {
			break
		}
		if err := os.Remove(filepath.Join(c.dir, e.name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return ev, err
		}
		ev.files++
		ev.bytes += e.size
		ev.total -= e.size
	}
	return ev, nil
}
