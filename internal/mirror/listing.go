package mirror

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/inferd/inferd/internal/store"
)

// The files of a repository's layout the mirror looks for (internal/repository's).
const (
	ConfigFile  = "model.yaml"
	RoutingFile = "routing.yaml"
)

// Version names one version of a model.
type Version struct{ Model, Version string }

func (v Version) String() string { return v.Model + "/" + v.Version }

// listed is one version as a listing shows it.
type listed struct {
	id Version
	// files are its objects, keyed by their path below the version's directory.
	files map[string]store.Object
}

// fingerprint is a digest of the version's listing (paths, ETags, sizes): equal
// fingerprints, the same objects.
func (l *listed) fingerprint() string {
	h := sha256.New()
	for _, rel := range slices.Sorted(maps.Keys(l.files)) {
		o := l.files[rel]
		h.Write([]byte(rel + "\x00" + o.ETag + "\x00" + strconv.FormatInt(o.Size, 10) + "\n"))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// layout is a listing grouped as the repository is laid out.
type layout struct {
	versions map[Version]*listed
	// rules are the models' routing.yaml objects.
	rules map[string]store.Object
}

// group sorts a listing into versions ("name/version/...", at any depth below the
// version) and routing files ("name/routing.yaml"). What else the repository holds is
// not the repository's to load and is left in the store: files at the top or beside
// the versions, and the directories internal/repository skips (names starting with
// '.' or '_'). A key that is not a clean relative path (an empty segment, "..") is
// never written to the disk.
func group(objs []store.Object) layout {
	l := layout{versions: map[Version]*listed{}, rules: map[string]store.Object{}}
	for _, o := range objs {
		if !fs.ValidPath(o.Key) {
			continue
		}
		parts := strings.SplitN(o.Key, "/", 3)
		if skipped(parts[0]) {
			continue
		}
		switch {
		case len(parts) == 2 && parts[1] == RoutingFile:
			l.rules[parts[0]] = o
		case len(parts) == 3 && !skipped(parts[1]):
			id := Version{parts[0], parts[1]}
			v := l.versions[id]
			if v == nil {
				v = &listed{id: id, files: map[string]store.Object{}}
				l.versions[id] = v
			}
			v.files[parts[2]] = o
		}
	}
	return l
}

func skipped(name string) bool { return strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") }
