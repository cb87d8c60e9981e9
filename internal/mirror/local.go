package mirror

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// local is the copy the repository reads: dir/<model>/<version>/..., with the models'
// routing.yaml beside their versions. Every file is a hard link into the cache, or a
// copy where the file system refuses links; tmp is a directory of the same file
// system, where versions are built before they are swapped into place.
type local struct {
	dir, tmp string
	cache    cache
}

func (l local) versionDir(v Version) string { return filepath.Join(l.dir, v.Model, v.Version) }

func (l local) rulePath(model string) string { return filepath.Join(l.dir, model, RoutingFile) }

// build makes the directory of h aside and swaps it into place: a reader of the
// directory sees the old version or the new one, whole, never a mix.
func (l local) build(h *held) error {
	tmp, err := os.MkdirTemp(l.tmp, "build-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp) // after a swap, the old version
	for rel, f := range h.Files {
		dst := filepath.Join(tmp, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return fmt.Errorf("%s/%s: %w", h.Model, h.Version, err)
		}
		if err := l.place(f.SHA256, dst); err != nil {
			return fmt.Errorf("%s/%s: %s: %w", h.Model, h.Version, rel, err)
		}
	}
	if err := os.Chmod(tmp, 0o755); err != nil { // MkdirTemp made it 0700
		return err
	}
	dst := l.versionDir(Version{h.Model, h.Version})
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	return replace(tmp, dst)
}

// place puts the cache's file of digest at dst: a hard link, or a copy when the file
// system cannot link (another device, a link count at its limit, no links at all).
func (l local) place(digest, dst string) error {
	src := l.cache.path(digest)
	l.cache.touch(digest)
	if err := os.Link(src, dst); err == nil {
		return nil
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o444)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// replace puts the directory tmp at dst. When dst exists, the two are exchanged in one
// rename where the kernel can (Linux's RENAME_EXCHANGE), leaving the old directory at
// tmp; elsewhere dst is moved aside first, and for that instant it is missing.
func replace(tmp, dst string) error {
	if _, err := os.Lstat(dst); errors.Is(err, fs.ErrNotExist) {
		return os.Rename(tmp, dst)
	}
	if err := exchange(tmp, dst); err == nil {
		return nil
	}
	aside := tmp + ".old"
	if err := os.Rename(dst, aside); err != nil {
		return err
	}
	if err := os.Rename(tmp, dst); err != nil {
		_ = os.Rename(aside, dst)
		return err
	}
	return os.RemoveAll(aside)
}

// remove drops a version's directory, moved out of the copy first so that it
// disappears at once, and the model's directory with its routing.yaml when no
// version is left in it. It reports whether the model's directory went.
func (l local) remove(v Version) (modelGone bool, err error) {
	if err := l.drop(l.versionDir(v)); err != nil {
		return false, err
	}
	return l.pruneModel(v.Model)
}

// pruneModel removes the directory of model when it holds no version any more.
func (l local) pruneModel(model string) (bool, error) {
	dir := filepath.Join(l.dir, model)
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	for _, e := range entries {
		if e.IsDir() {
			return false, nil
		}
	}
	return true, l.drop(dir)
}

// drop removes a file or directory of the copy; a missing one is not an error.
func (l local) drop(name string) error {
	aside, err := os.MkdirTemp(l.tmp, "drop-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(aside)
	if err := os.Rename(name, filepath.Join(aside, "x")); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// setRule puts the cache's file of digest at model's routing.yaml, in one rename.
func (l local) setRule(model, digest string) error {
	tmp, err := os.MkdirTemp(l.tmp, "rule-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	name := filepath.Join(tmp, RoutingFile)
	if err := l.place(digest, name); err != nil {
		return err
	}
	return os.Rename(name, l.rulePath(model))
}

// intact reports whether v's directory holds exactly h's files, each of its size:
// what a crash or a hand in the copy may have left otherwise is built again.
func (l local) intact(h *held) bool {
	dir := l.versionDir(Version{h.Model, h.Version})
	seen := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		f, ok := h.Files[filepath.ToSlash(rel)]
		fi, err := os.Lstat(p)
		if !ok || err != nil || !fi.Mode().IsRegular() || fi.Size() != f.Size {
			return errors.New("differs")
		}
		seen++
		return nil
	})
	return err == nil && seen == len(h.Files)
}
