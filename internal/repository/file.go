package repository

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/inferd/inferd/internal/backend"
)

// The size caps of the files a repository holds. A model.yaml or routing.yaml is a few
// kilobytes; a megabyte leaves room and stops a file that never ends.
const (
	// DefaultMaxModelBytes is MAX_MODEL_BYTES's default: 2 GiB, the most a single ONNX
	// file (a protocol buffer) can hold.
	DefaultMaxModelBytes = 2 << 30
	maxConfigBytes       = 1 << 20
)

// ErrUnsafeFile marks a repository file that is refused before it is read: not a
// regular file (a FIFO, a device, a directory), a link to a file outside the
// repository, or a file larger than its cap. The error is a *ConfigError naming the
// file.
var ErrUnsafeFile = backend.ErrUnsafeFile

// unsafeFile is an ErrUnsafeFile naming the file.
type unsafeFile struct{ ConfigError }

func (e *unsafeFile) Is(target error) bool {
	return target == ErrUnsafeFile || target == ErrInvalidConfig
}

func refuse(file, format string, args ...any) error {
	return &unsafeFile{ConfigError{File: file, Msg: fmt.Sprintf(format, args...)}}
}

// readFile reads a file of the repository, at most limit bytes, and only when it is a
// regular file inside the repository, links resolved. An operator's mistake (a link
// to /dev/zero, a FIFO left in a version directory) must not make a load read without
// end or hang, so what is not a regular file is refused before a byte is read, and a
// file that grows past limit while it is read is refused when it does.
func (s *Source) readFile(file string, limit int64) ([]byte, error) {
	real, err := filepath.EvalSymlinks(file)
	if err != nil {
		return nil, err // os.ErrNotExist included: callers word a missing file
	}
	if root, err := filepath.EvalSymlinks(s.opts.Dir); err == nil {
		if rel, err := filepath.Rel(root, real); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return nil, refuse(file, "is a link to a file outside the model repository (MODELS_DIR); put the file itself in the version directory")
		}
	}
	// O_NONBLOCK: opening a FIFO for reading would wait for a writer; the file is
	// checked on the descriptor itself, so a swap after the check changes nothing.
	f, err := os.OpenFile(real, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, refuse(file, "is not a regular file (%s); a model repository holds regular files only", fileKind(fi.Mode()))
	}
	if fi.Size() > limit {
		return nil, refuse(file, "holds %d bytes, over the %d a file of its kind may have%s", fi.Size(), limit, limitSetting(limit))
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, refuse(file, "grew past the %d bytes a file of its kind may have while it was read%s", limit, limitSetting(limit))
	}
	return data, nil
}

// limitSetting names the setting that raises limit, when one does.
func limitSetting(limit int64) string {
	if limit == maxConfigBytes {
		return ""
	}
	return " (MAX_MODEL_BYTES)"
}

func fileKind(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&os.ModeNamedPipe != 0:
		return "a named pipe"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeDevice != 0:
		return "a device"
	}
	return "mode " + m.String()
}
