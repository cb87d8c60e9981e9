package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"

	"github.com/inferd/inferd/internal/auth"
)

// ReadKeysFile reads and parses API_KEYS_FILE as the start of the server does, for a
// reload to read it the same way: its errors name the file and never a key.
func ReadKeysFile(path string) (*auth.Keyring, []byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("API_KEYS_FILE: %w", unreadable(path, err))
	}
	k, err := ParseKeysFile(path, b)
	return k, b, err
}

// ParseKeysFile parses the contents of API_KEYS_FILE path.
func ParseKeysFile(path string, b []byte) (*auth.Keyring, error) {
	return auth.Parse("API_KEYS_FILE "+path, string(b))
}

// unreadable explains a keys file this process may not read. The usual cause is a
// secret mounted with its owner's mode: a file of mode 0600 on the host stays 0600,
// owned by the host's user, inside a container that runs as another user (the image's
// 10001). The error says who the process is, what the file allows, and how to let it
// read the file, since "permission denied" alone sends an operator looking at the
// keys' format.
func unreadable(path string, err error) error {
	if !errors.Is(err, fs.ErrPermission) {
		return err
	}
	who := fmt.Sprintf("inferd runs as uid %d gid %d", os.Geteuid(), os.Getegid())
	if fi, serr := os.Stat(path); serr == nil {
		if st, ok := fi.Sys().(*syscall.Stat_t); ok {
			who += fmt.Sprintf(", the file is mode %04o owned by uid %d gid %d", fi.Mode().Perm(), st.Uid, st.Gid)
		}
	}
	return fmt.Errorf("%s: cannot read it (%w): %s; make it readable by uid %d: chown it to that user, "+
		"or give it a group of the process with mode 0440; in Kubernetes set the pod's securityContext.fsGroup, "+
		"with docker-compose keep the keys service of deploy/compose.yaml (docs/operations.md)",
		path, fs.ErrPermission, who, os.Geteuid())
}
