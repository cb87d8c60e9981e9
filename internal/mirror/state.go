package mirror

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// stateFormat is the version of state.json's layout; a file of another is ignored.
const stateFormat = 1

// state is what the local copy holds, kept in CacheDir/state.json after every poll that
// changed it, so that a process started while the store is down serves the versions
// the last good poll took.
type state struct {
	Format int `json:"format"`
	// Store is the repository the copy is of (Store.String()): a copy of another is
	// not served.
	Store string `json:"store"`
	// Synced is when a poll last succeeded; kept at most a minute late.
	Synced time.Time `json:"synced"`
	// Versions are the versions the copy holds, by "model/version".
	Versions map[string]*held `json:"versions"`
	// Rules are the models' routing.yaml files the copy holds.
	Rules map[string]file `json:"rules"`
}

// held is one version of the copy.
type held struct {
	Model   string          `json:"model"`
	Version string          `json:"version"`
	Files   map[string]file `json:"files"`
	// Signer is the fingerprint of the key whose signature over SHA256SUMS verified
	// when the copy took it; "" with no key configured.
	Signer string `json:"signer,omitempty"`
}

// file is one file of the copy: the object it was read from and its content's digest.
type file struct {
	ETag   string `json:"etag"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// same reports whether the listing l shows exactly the objects h was read from.
func (h *held) same(l *listed) bool {
	if len(h.Files) != len(l.files) {
		return false
	}
	for rel, o := range l.files {
		f, ok := h.Files[rel]
		if !ok || f.ETag != o.ETag || f.Size != o.Size {
			return false
		}
	}
	return true
}

func newState(storeName string) *state {
	return &state{Format: stateFormat, Store: storeName, Versions: map[string]*held{}, Rules: map[string]file{}}
}

// readState reads the state kept in name, or none when there is none; a state that
// cannot be read, or is of another store, is no state, since a cache can always be
// filled again.
func readState(name, storeName string) (*state, error) {
	b, err := os.ReadFile(name)
	if errors.Is(err, fs.ErrNotExist) {
		return newState(storeName), nil
	}
	if err != nil {
		return newState(storeName), err
	}
	var s state
	if err := json.Unmarshal(b, &s); err != nil {
		return newState(storeName), fmt.Errorf("%s: %w", name, err)
	}
	if s.Format != stateFormat {
		return newState(storeName), fmt.Errorf("%s: format %d, not %d", name, s.Format, stateFormat)
	}
	if s.Store != storeName {
		return newState(storeName), fmt.Errorf("%s: a copy of %s, not of %s", name, s.Store, storeName)
	}
	if s.Versions == nil {
		s.Versions = map[string]*held{}
	}
	if s.Rules == nil {
		s.Rules = map[string]file{}
	}
	return &s, nil
}

// write replaces the file name with s, in one rename, synced first so that a crash
// leaves the old state or the new one.
func (s *state) write(name string) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(name), ".state-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name()) // once renamed, a no-op
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), name)
}

// digests are the cache files the state's versions and rules use.
func (s *state) digests() map[string]bool {
	used := map[string]bool{}
	for _, h := range s.Versions {
		for _, f := range h.Files {
			used[f.SHA256] = true
		}
	}
	for _, f := range s.Rules {
		used[f.SHA256] = true
	}
	return used
}

// valid reports whether h is what a poll writes: names and paths that stay inside the
// copy, digests that name cache files. The state is read back from the disk, and its
// names become paths.
func (h *held) valid() bool {
	if !validName(h.Model) || !validName(h.Version) || len(h.Files) == 0 {
		return false
	}
	for rel, f := range h.Files {
		if !fs.ValidPath(rel) || rel == "." || !validDigest(f.SHA256) {
			return false
		}
	}
	return true
}

func validName(s string) bool {
	return s != "" && fs.ValidPath(s) && !strings.Contains(s, "/") && !skipped(s)
}

func validDigest(s string) bool {
	b, err := hex.DecodeString(s)
	return err == nil && len(b) == sha256.Size && s == strings.ToLower(s)
}
