package mirror_test

import (
	"context"
	"errors"
	"io"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/inferd/inferd/internal/backend"
	"github.com/inferd/inferd/internal/backend/echo"
	"github.com/inferd/inferd/internal/mirror"
	"github.com/inferd/inferd/internal/registry"
	"github.com/inferd/inferd/internal/repository"
	"github.com/inferd/inferd/internal/store"
)

// iris is a repository of two versions, one with digests and one without, a
// routing rule, and what is not the repository's to load.
func iris() map[string]string {
	return merge(
		version("iris", "v1", true, map[string]string{"model.yaml": echoYAML("iris one"), "model.onnx": "onnx bytes one", "vocab/words.txt": "a b c"}),
		version("iris", "v2", false, map[string]string{"model.yaml": echoYAML("iris two")}),
		map[string]string{
			"iris/routing.yaml":     "strategy: static\nversion: v1\n",
			"README.md":             "not a model",
			"_drafts/v1/model.yaml": echoYAML("skipped"),
			"iris/.v3/model.yaml":   echoYAML("skipped"),
		},
	)
}

// served is what of iris() the copy holds.
func served() map[string]string {
	m := iris()
	for _, k := range []string{"README.md", "_drafts/v1/model.yaml", "iris/.v3/model.yaml"} {
		delete(m, k)
	}
	return m
}

func ids(vs []mirror.Version) []string {
	var out []string
	for _, v := range vs {
		out = append(out, v.String())
	}
	return out
}

// TestServe: a version with digests is taken on the first poll, one without on the
// second (its listing held still), the routing rule with them; the repository loads
// the copy; and a poll of an unchanged repository costs one listing and no read.
func TestServe(t *testing.T) {
	var polls []mirror.Result
	f := newFixture(t, mirror.Options{Observer: mirror.ObserverFunc(func(r mirror.Result) { polls = append(polls, r) })})
	f.put(iris())

	r := f.sync()
	if got := ids(r.Added); !slices.Equal(got, []string{"iris/v1"}) {
		t.Errorf("first poll added %v, want iris/v1 (v2 has no SHA256SUMS: it waits a poll)", got)
	}
	if len(r.Pending) != 1 || r.Pending[0].String() != "iris/v2" || len(r.Rules) != 0 {
		t.Errorf("first poll: pending %v, rules %v: want iris/v2 pending and the rule waiting for it", r.Pending, r.Rules)
	}
	r = f.sync()
	if got := ids(r.Added); !slices.Equal(got, []string{"iris/v2"}) || !slices.Equal(r.Rules, []string{"iris"}) {
		t.Errorf("second poll added %v, rules %v: want iris/v2 and iris's routing.yaml", got, r.Rules)
	}
	if got, want := f.copied(), served(); !maps.Equal(got, want) {
		t.Errorf("the copy holds %v\nwant %v", slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(want)))
	}

	src := repository.New(repository.Options{Dir: f.m.Dir(), Backends: backend.Catalogue{echo.Backend{}}})
	spec, err := src.Model(context.Background(), "iris")
	if err != nil {
		t.Fatal(err)
	}
	if len(spec.Versions) != 2 || spec.Rule.Strategy != registry.Static || spec.Rule.Version != "v1" {
		t.Fatalf("the repository reads %+v from the copy", spec)
	}
	for _, v := range spec.Versions {
		if v.Err != nil {
			t.Fatalf("%s: %v", v.Version, v.Err)
		}
		p, err := v.Loader.Load(context.Background())
		if err != nil {
			t.Fatalf("loading %s from the copy: %v", v.Version, err)
		}
		if want := map[string]string{"v1": "iris one", "v2": "iris two"}[v.Version]; p.Info.Description != want {
			t.Errorf("%s loaded %q", v.Version, p.Info.Description)
		}
		p.Close()
	}

	f.s.take()
	r = f.sync()
	gets, lists := f.s.take()
	if len(gets) != 0 || lists != 1 || r.Gets != 0 || r.Lists != 1 || len(r.Added)+len(r.Changed)+len(r.Removed) != 0 {
		t.Errorf("a poll of an unchanged repository made %d lists and read %v (result: %d lists, %d gets, %+v): want one list and no read",
			lists, gets, r.Lists, r.Gets, r)
	}
	if len(polls) != 3 || polls[2].LastSuccess.IsZero() || polls[2].Err != nil {
		t.Errorf("the observer was told of %d polls (last %+v), want 3, the last a success", len(polls), polls[len(polls)-1])
	}
}

// TestAddedLater: a version uploaded while the copy serves appears after a poll, its
// files alone read.
func TestAddedLater(t *testing.T) {
	f := newFixture(t, mirror.Options{})
	f.put(iris())
	f.sync()
	f.sync()
	f.s.take()
	v3 := version("iris", "v3", true, map[string]string{"model.yaml": echoYAML("iris three"), "model.onnx": "onnx bytes three"})
	f.put(v3)
	r := f.sync()
	if got := ids(r.Added); !slices.Equal(got, []string{"iris/v3"}) {
		t.Fatalf("added %v, want iris/v3", got)
	}
	gets, _ := f.s.take()
	if want := []string{"iris/v3/SHA256SUMS", "iris/v3/model.onnx", "iris/v3/model.yaml"}; !slices.Equal(slices.Sorted(maps.Keys(gets)), want) {
		t.Errorf("the poll read %v, want only %v", gets, want)
	}
	if got := below(f.copied(), "iris/v3/"); !maps.Equal(got, v3) {
		t.Errorf("the copy of iris/v3 is %v, want %v", got, v3)
	}
}

// TestRefused: a version that is not right is refused with its reason, a new one
// left out and a changed one left as the copy held it, while the others are taken;
// and the same listing is not read again to be refused again.
func TestRefused(t *testing.T) {
	good := map[string]string{"model.yaml": echoYAML("iris"), "model.onnx": "good model"}
	withSums := func(files map[string]string, sums string) map[string]string {
		return merge(files, map[string]string{"SHA256SUMS": sums})
	}
	tests := []struct {
		name     string
		require  bool
		files    map[string]string // the bad version's, below its directory
		kind     error
		file     string
		mismatch bool
	}{
		// Of another length than the good one: with the good one in the cache already,
		// a file of its length is taken from the cache, unread (see TestCachedContent).
		{name: "digest mismatch", kind: mirror.ErrDigestMismatch, file: "model.onnx", mismatch: true,
			files: withSums(map[string]string{"model.yaml": echoYAML("iris"), "model.onnx": "evil model!"}, sumsOf(good))},
		{name: "listed file missing", kind: mirror.ErrMissingFile, file: "extra.bin",
			files: withSums(good, sumsOf(merge(good, map[string]string{"extra.bin": "x"})))},
		{name: "file not listed", kind: mirror.ErrUnlistedFile, file: "extra.bin",
			files: withSums(merge(good, map[string]string{"extra.bin": "x"}), sumsOf(good))},
		{name: "malformed SHA256SUMS", kind: mirror.ErrMalformedSums, file: "SHA256SUMS",
			files: withSums(good, "model.onnx  0123\n")},
		{name: "no model.yaml", kind: mirror.ErrNoConfig,
			files: map[string]string{"model.onnx": "a model without its config"}},
		{name: "digests required", require: true, kind: mirror.ErrNoDigests,
			files: map[string]string{"model.yaml": echoYAML("iris"), "model.onnx": "unverified"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, mirror.Options{RequireDigests: tt.require})
			old := version("iris", "v1", true, good)
			other := version("other", "v1", true, map[string]string{"model.yaml": echoYAML("other")})
			f.put(merge(old, other))
			f.sync()

			// v1 is overwritten with the bad files, v2 uploaded with them, and another
			// model changes at the same time.
			for k := range old {
				if _, ok := tt.files[strings.TrimPrefix(k, "iris/v1/")]; !ok {
					f.b.Delete(t, k)
				}
			}
			f.put(merge(version("iris", "v1", false, tt.files), version("iris", "v2", false, tt.files)))
			other2 := version("other", "v1", true, map[string]string{"model.yaml": echoYAML("other, changed")})
			f.put(other2)
			var refused []mirror.Refusal
			var changed []mirror.Version
			for range 2 { // a missing piece is waited for while the listing changes
				r := f.sync()
				for _, rf := range r.Refused {
					if rf.New {
						refused = append(refused, rf)
					}
				}
				changed = append(changed, r.Changed...)
			}
			if got := ids(changed); !slices.Equal(got, []string{"other/v1"}) {
				t.Errorf("changed %v: want other/v1 taken beside the refusals", got)
			}
			if len(refused) != 2 {
				t.Fatalf("refused %v, want iris/v1 and iris/v2", refused)
			}
			for _, rf := range refused {
				re := rf.Err
				if !errors.Is(re, tt.kind) || !errors.Is(re, mirror.ErrRefused) || re.File != tt.file || re.Model != "iris" {
					t.Errorf("refusal %+v (%v): want a new %v of file %q", rf, re, tt.kind, tt.file)
				}
				if tt.mismatch && (re.Expected != digest("good model") || re.Found != digest("evil model!") ||
					!strings.Contains(re.Error(), re.Expected) || !strings.Contains(re.Error(), re.Found)) {
					t.Errorf("mismatch %q: want expected %s and found %s, named in the message", re, digest("good model"), digest("evil model!"))
				}
			}
			copied := f.copied()
			if got := below(copied, "iris/"); !maps.Equal(got, old) {
				t.Errorf("iris's copy is %v, want v1 as it was, and no v2", got)
			}
			if got := below(copied, "other/"); !maps.Equal(got, other2) {
				t.Errorf("other's copy is %v, want %v", got, other2)
			}
			if !strings.Contains(f.log.String(), mirror.Reason(refused[0].Err)) {
				t.Errorf("the log does not give the reason %q:\n%s", mirror.Reason(refused[0].Err), f.log)
			}

			f.s.take()
			r := f.sync()
			if gets, _ := f.s.take(); len(gets) != 0 || len(r.Refused) != 2 || r.Refused[0].New || r.Err != nil {
				t.Errorf("polled again: read %v, refused %+v, error %v: want the same refusals, not new, at no read", gets, r.Refused, r.Err)
			}

			// Fixed upstream: taken.
			f.b.Delete(t, "iris/v1/extra.bin")
			f.b.Delete(t, "iris/v2/extra.bin")
			fixed := merge(version("iris", "v1", true, map[string]string{"model.yaml": echoYAML("iris fixed"), "model.onnx": "good model"}), version("iris", "v2", true, good))
			f.put(fixed)
			r = f.sync()
			if len(r.Refused) != 0 || len(r.Changed)+len(r.Added) != 2 {
				t.Errorf("after the fix: refused %v, changed %v, added %v: want both taken", r.Refused, r.Changed, r.Added)
			}
		})
	}
}

// TestFileByFile: a version uploaded one file per poll is never in the copy in part,
// and is once whole: with SHA256SUMS on the poll after its last file, without on the
// one after that, once its listing has held still. A version replaced file by file
// keeps its old copy, whole, until then.
func TestFileByFile(t *testing.T) {
	files := map[string]string{"model.yaml": echoYAML("new"), "model.onnx": "new model bytes", "tokenizer.json": "{}"}
	oldFiles := map[string]string{"model.yaml": echoYAML("old"), "model.onnx": "old model bytes"}
	sums := sumsOf(files)
	tests := []struct {
		name  string
		order []string // the files uploaded, one per poll
		sums  bool
		old   bool // an older version is there first
		// whole is the poll (counted from 1 after the first upload) that takes it.
		whole int
	}{
		{name: "digests first", sums: true, order: []string{"SHA256SUMS", "model.yaml", "model.onnx", "tokenizer.json"}, whole: 4},
		{name: "digests last", sums: true, order: []string{"model.onnx", "model.yaml", "tokenizer.json", "SHA256SUMS"}, whole: 4},
		{name: "no digests, config first", order: []string{"model.yaml", "model.onnx", "tokenizer.json"}, whole: 4},
		{name: "no digests, config last", order: []string{"model.onnx", "tokenizer.json", "model.yaml"}, whole: 4},
		{name: "replaced, digests first", sums: true, old: true, order: []string{"SHA256SUMS", "model.onnx", "model.yaml", "tokenizer.json"}, whole: 4},
		{name: "replaced, no digests", old: true, order: []string{"model.onnx", "tokenizer.json", "model.yaml"}, whole: 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, mirror.Options{})
			want := version("m", "v1", tt.sums, files)
			var before map[string]string
			if tt.old {
				before = version("m", "v1", true, oldFiles)
				f.put(before)
				f.sync()
				f.b.Delete(t, "m/v1/SHA256SUMS")
			}
			for poll := 1; poll <= tt.whole+1; poll++ {
				if poll <= len(tt.order) {
					name := tt.order[poll-1]
					content := files[name]
					if name == "SHA256SUMS" {
						content = sums
					}
					f.b.Put(t, "m/v1/"+name, []byte(content))
				}
				r := f.sync()
				got := below(f.copied(), "m/")
				switch {
				case poll >= tt.whole:
					if !maps.Equal(got, want) {
						t.Fatalf("poll %d: the copy holds %v, want the whole version", poll, got)
					}
					if poll == tt.whole && len(r.Added)+len(r.Changed) != 1 {
						t.Errorf("poll %d: added %v, changed %v", poll, r.Added, r.Changed)
					}
				case !maps.Equal(got, before):
					t.Fatalf("poll %d (after %s): the copy holds %v, want %v until the version is whole", poll, tt.order[:min(poll, len(tt.order))], got, before)
				case len(r.Refused) != 0:
					t.Fatalf("poll %d: refused %v while it was being uploaded", poll, r.Refused)
				}
			}
		})
	}
}

// TestDeleted: a version deleted upstream leaves the copy; the last version of a
// model takes the model's directory and routing.yaml with it.
func TestDeleted(t *testing.T) {
	f := newFixture(t, mirror.Options{})
	f.put(iris())
	f.sync()
	f.sync()
	f.b.Delete(t, "iris/v2/model.yaml")
	r := f.sync()
	if got := ids(r.Removed); !slices.Equal(got, []string{"iris/v2"}) {
		t.Fatalf("removed %v, want iris/v2", got)
	}
	if _, err := os.Stat(filepath.Join(f.m.Dir(), "iris", "v2")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("iris/v2 is still in the copy: %v", err)
	}
	if _, ok := f.copied()["iris/routing.yaml"]; !ok {
		t.Errorf("routing.yaml went with iris/v2")
	}
	for k := range iris() {
		if strings.HasPrefix(k, "iris/v1/") {
			f.b.Delete(t, k)
		}
	}
	r = f.sync()
	if got := ids(r.Removed); !slices.Equal(got, []string{"iris/v1"}) {
		t.Fatalf("removed %v, want iris/v1", got)
	}
	if got := f.copied(); len(got) != 0 {
		t.Errorf("the copy holds %v after every version went", got)
	}
	if _, err := os.Stat(filepath.Join(f.m.Dir(), "iris")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("iris's directory is still in the copy: %v", err)
	}
}

// TestSharedFile: a file two versions share is read once, and the versions' files
// are one file on disk, the cache's.
func TestSharedFile(t *testing.T) {
	f := newFixture(t, mirror.Options{})
	shared := strings.Repeat("shared weights ", 10_000)
	f.put(merge(
		version("m", "v1", true, map[string]string{"model.yaml": echoYAML("one"), "model.onnx": shared}),
		version("m", "v2", true, map[string]string{"model.yaml": echoYAML("two"), "model.onnx": shared}),
	))
	r := f.sync()
	gets, _ := f.s.take()
	if n := len(gets["m/v1/model.onnx"]) + len(gets["m/v2/model.onnx"]); n != 1 || r.CacheHits != 1 {
		t.Errorf("the shared file was read %d times (%v), cache hits %d: want once, and a hit", n, gets, r.CacheHits)
	}
	a, errA := os.Stat(filepath.Join(f.m.Dir(), "m", "v1", "model.onnx"))
	b, errB := os.Stat(filepath.Join(f.m.Dir(), "m", "v2", "model.onnx"))
	if errA != nil || errB != nil || !os.SameFile(a, b) {
		t.Errorf("the versions' copies of the shared file are not one file: %v %v", errA, errB)
	}
	f.put(version("m", "v3", true, map[string]string{"model.yaml": echoYAML("three"), "model.onnx": shared}))
	r = f.sync()
	if gets, _ := f.s.take(); len(gets["m/v3/model.onnx"]) != 0 || !slices.Equal(ids(r.Added), []string{"m/v3"}) {
		t.Errorf("a third version sharing the file read it again: %v (added %v)", gets, r.Added)
	}
	if r.BytesDownloaded >= int64(len(shared)) {
		t.Errorf("downloaded %d bytes for v3, whose weights are in the cache", r.BytesDownloaded)
	}
}

// TestCacheBound: the bound evicts files no version uses, and never one in use,
// even when the versions in use alone exceed it.
func TestCacheBound(t *testing.T) {
	weightsA, weightsB := strings.Repeat("a", 4000), strings.Repeat("b", 4000)
	tests := []struct {
		name     string
		max      int64
		wantGone bool // v1's weights, once v1 is deleted
	}{
		{"no bound", 0, false},
		{"a bound the versions fit", 5000, true},
		{"a bound below the versions in use", 1, true},
		{"a bound with room for everything", 1 << 20, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, mirror.Options{MaxBytes: tt.max})
			v2 := version("m", "v2", true, map[string]string{"model.yaml": echoYAML("two"), "model.onnx": weightsB})
			f.put(merge(version("m", "v1", true, map[string]string{"model.yaml": echoYAML("one"), "model.onnx": weightsA}), v2))
			r := f.sync()
			if r.Evicted != 0 || len(r.Added) != 2 {
				t.Fatalf("evicted %d files while both versions use them (added %v)", r.Evicted, r.Added)
			}
			for k := range version("m", "v1", true, nil) {
				f.b.Delete(t, k)
			}
			f.b.Delete(t, "m/v1/model.yaml")
			f.b.Delete(t, "m/v1/model.onnx")
			r = f.sync()
			_, err := os.Stat(filepath.Join(f.cache, "sha256", digest(weightsA)))
			if gone := errors.Is(err, os.ErrNotExist); gone != tt.wantGone {
				t.Errorf("v1's weights gone from the cache: %v, want %v (evicted %d files, %d bytes; cache %d bytes)", gone, tt.wantGone, r.Evicted, r.EvictedBytes, r.CacheBytes)
			}
			if _, err := os.Stat(filepath.Join(f.cache, "sha256", digest(weightsB))); err != nil {
				t.Errorf("v2's weights, in use, were evicted: %v", err)
			}
			if got := f.copied(); !maps.Equal(got, v2) {
				t.Errorf("the copy holds %v, want v2 whole", slices.Sorted(maps.Keys(got)))
			}
			if tt.max > 0 && r.CacheBytes > tt.max && r.CacheBytes < int64(len(weightsB)) {
				t.Errorf("the cache holds %d bytes, over its bound %d, with only v2's %d in use", r.CacheBytes, tt.max, len(weightsB))
			}
		})
	}
}

// TestRestartStoreDown: a process started while the store cannot be reached serves
// what the last good poll took, from the cache: whether the copy's directory
// survived or not (a new pod on the cache's volume).
func TestRestartStoreDown(t *testing.T) {
	for _, lost := range []bool{false, true} {
		name := map[bool]string{false: "copy kept", true: "copy lost"}[lost]
		t.Run(name, func(t *testing.T) {
			f := newFixture(t, mirror.Options{})
			f.put(iris())
			f.sync()
			last := f.sync().LastSuccess
			want := served()
			f.m.Close()
			if lost {
				if err := os.RemoveAll(f.m.Dir()); err != nil {
					t.Fatal(err)
				}
			}
			f.open(down{name: f.s.String()})
			if got := f.copied(); !maps.Equal(got, want) {
				t.Fatalf("restarted with the store down, the copy holds %v, want %v", slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(want)))
			}
			r, err := f.m.Sync(context.Background())
			if !errors.Is(err, store.ErrUnavailable) || r.Errors["unavailable"] != 1 || r.Lists != 5 {
				t.Errorf("a poll of the store down: %v, errors %v, %d lists: want ErrUnavailable after 5 attempts", err, r.Errors, r.Lists)
			}
			if !r.LastSuccess.Equal(last) {
				t.Errorf("last success %v, want %v, the poll before the restart", r.LastSuccess, last)
			}
			if got := f.copied(); !maps.Equal(got, want) {
				t.Errorf("after a failed poll the copy holds %v", slices.Sorted(maps.Keys(got)))
			}
			spec, err := repository.New(repository.Options{Dir: f.m.Dir(), Backends: backend.Catalogue{echo.Backend{}}}).Model(context.Background(), "iris")
			if err != nil || len(spec.Versions) != 2 || spec.Versions[0].Err != nil || spec.Versions[1].Err != nil {
				t.Errorf("the repository reads %+v, %v from the copy", spec, err)
			}

			// The store back: nothing to read again.
			f.open(f.s)
			f.s.take()
			r = f.sync()
			if gets, _ := f.s.take(); len(gets) != 0 || len(r.Added)+len(r.Changed)+len(r.Removed) != 0 {
				t.Errorf("the store back: read %v, %+v; want nothing", gets, r)
			}
		})
	}
}

// TestOtherStore: the cache's state of another repository is not served.
func TestOtherStore(t *testing.T) {
	f := newFixture(t, mirror.Options{})
	f.put(iris())
	f.sync()
	f.m.Close()
	f.open(down{name: "s3://another/bucket"})
	if got := f.copied(); len(got) != 0 {
		t.Errorf("a mirror of another store serves %v", slices.Sorted(maps.Keys(got)))
	}
}

// TestDownloadFaults: a read cut midway resumes from where it stopped; a store
// unavailable once is asked again; an object overwritten while it is read is read
// again from its start when digests will check it, and waited for otherwise.
func TestDownloadFaults(t *testing.T) {
	weights := strings.Repeat("0123456789", 100_000)
	tests := []struct {
		name    string
		sums    bool
		after   int64
		err     error
		offsets []int64 // of the weights' Gets
		polls   int     // to take the version
	}{
		{"cut midway", true, 300_000, errCut, []int64{0, 300_000}, 1},
		{"cut midway, no digests", false, 300_000, errCut, []int64{0, 300_000}, 2},
		{"unavailable once", true, -1, store.ErrUnavailable, []int64{0, 0}, 1},
		{"overwritten midway", true, 1000, store.ErrChanged, []int64{0, 0}, 1},
		{"overwritten midway, no digests", false, 1000, store.ErrChanged, []int64{0, 0}, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, mirror.Options{})
			ft := &faulty{Store: f.dir, key: "m/v1/model.onnx", after: tt.after, err: tt.err}
			f.s = newCounting(ft)
			f.open(f.s)
			want := version("m", "v1", tt.sums, map[string]string{"model.yaml": echoYAML("m"), "model.onnx": weights})
			f.put(want)
			var bytes int64
			for poll := 1; poll <= tt.polls; poll++ {
				r := f.sync()
				bytes += r.BytesDownloaded
				if taken := len(r.Added) == 1; taken != (poll == tt.polls) {
					t.Fatalf("poll %d: added %v, pending %v", poll, r.Added, r.Pending)
				}
			}
			gets, _ := f.s.take()
			if !slices.Equal(gets["m/v1/model.onnx"], tt.offsets) {
				t.Errorf("the weights were read from offsets %v, want %v", gets["m/v1/model.onnx"], tt.offsets)
			}
			if tt.err == errCut && bytes != int64(sizeOf(want)) {
				t.Errorf("downloaded %d bytes for a version of %d: a resumed read reads nothing twice", bytes, sizeOf(want))
			}
			if got := f.copied(); !maps.Equal(got, want) {
				t.Errorf("the copy differs from the version")
			}
		})
	}
}

func sizeOf(files map[string]string) int {
	n := 0
	for _, v := range files {
		n += len(v)
	}
	return n
}

// TestStoreKeepsFailing: a read that never gets anywhere is given up after its
// attempts; the poll fails with the reason, and the copy keeps what it held.
func TestStoreKeepsFailing(t *testing.T) {
	f := newFixture(t, mirror.Options{})
	old := version("m", "v1", true, map[string]string{"model.yaml": echoYAML("old"), "model.onnx": "old"})
	f.put(old)
	f.sync()
	f.s = newCounting(&stuck{Store: f.dir})
	f.open(f.s)
	f.put(version("m", "v1", true, map[string]string{"model.yaml": echoYAML("new"), "model.onnx": "new"}))
	r, err := f.m.Sync(context.Background())
	if !errors.Is(err, store.ErrUnavailable) && r.Errors["unavailable"] != 1 {
		t.Errorf("Sync: %v, errors %v: want a failure for reason unavailable", err, r.Errors)
	}
	if r.Gets != 5 {
		t.Errorf("%d reads, want 5 attempts", r.Gets)
	}
	if got := f.copied(); !maps.Equal(got, old) {
		t.Errorf("the copy holds %v, want the old version", got)
	}
}

// stuck is a store whose reads all fail before their first byte.
type stuck struct{ store.Store }

func (s *stuck) Get(ctx context.Context, key string, offset int64, etag string) (_ io.ReadCloser, _ store.Object, err error) {
	rc, o, err := s.Store.Get(ctx, key, offset, etag)
	if err != nil {
		return nil, o, err
	}
	return &cutReader{rc: rc, err: errCut}, o, nil
}

// TestStreams: a download goes to disk as it is read: a 32 MiB file costs a few
// buffers of memory, not itself.
func TestStreams(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 32 MiB")
	}
	f := newFixture(t, mirror.Options{})
	big := strings.Repeat("weights!", 4<<20)
	f.put(version("m", "v1", true, map[string]string{"model.yaml": echoYAML("big"), "model.onnx": big}))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	r := f.sync()
	runtime.ReadMemStats(&after)
	if len(r.Added) != 1 {
		t.Fatalf("added %v", r.Added)
	}
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("a poll downloading %d MiB allocated %d KiB", len(big)>>20, alloc>>10)
	if alloc > 4<<20 {
		t.Errorf("a poll downloading %d MiB allocated %d KiB: the file went through memory", len(big)>>20, alloc>>10)
	}
}

// TestSwapInPlace: while a version changes again and again, its directory never
// goes missing from the copy: each change is swapped in with one rename.
func TestSwapInPlace(t *testing.T) {
	f := newFixture(t, mirror.Options{})
	f.put(version("m", "v1", true, map[string]string{"model.yaml": echoYAML("0"), "model.onnx": "0"}))
	f.sync()
	var missing, reads atomic.Int64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := os.Stat(filepath.Join(f.m.Dir(), "m", "v1", "model.yaml")); err != nil {
				missing.Add(1)
			}
			reads.Add(1)
		}
	}()
	for i := 1; i <= 20; i++ {
		n := strconv.Itoa(i)
		f.put(version("m", "v1", true, map[string]string{"model.yaml": echoYAML(n), "model.onnx": n}))
		if r := f.sync(); len(r.Changed) != 1 {
			t.Fatalf("change %d: %+v", i, r)
		}
	}
	close(stop)
	<-done
	if missing.Load() != 0 {
		t.Errorf("m/v1/model.yaml was missing %d times in %d looks while the version changed", missing.Load(), reads.Load())
	}
}

// TestLocked: one process at a time uses a cache directory.
func TestLocked(t *testing.T) {
	f := newFixture(t, mirror.Options{})
	if _, err := mirror.New(mirror.Options{Store: f.s, CacheDir: f.cache}); !errors.Is(err, mirror.ErrLocked) {
		t.Errorf("a second mirror of the cache directory: %v, want ErrLocked", err)
	}
	f.m.Close()
	m, err := mirror.New(mirror.Options{Store: f.s, CacheDir: f.cache})
	if err != nil {
		t.Fatalf("after Close: %v", err)
	}
	m.Close()
}

// TestCachedContent: a file whose digest SHA256SUMS gives and the cache holds is taken
// from the cache, unread; so a corrupt upload of content the cache has already
// verified is served as SHA256SUMS says, the corrupt bytes never, while a mirror with
// a cache of its own that has not refuses it.
func TestCachedContent(t *testing.T) {
	good := map[string]string{"model.yaml": echoYAML("m"), "model.onnx": "good model"}
	f := newFixture(t, mirror.Options{})
	f.put(version("m", "v1", true, good))
	f.sync()
	// v2 says it is v1's content; its model.onnx is corrupt, of the same length.
	f.put(merge(version("m", "v2", false, map[string]string{"model.yaml": good["model.yaml"], "model.onnx": "evil model"}),
		map[string]string{"m/v2/SHA256SUMS": sumsOf(good)}))
	f.s.take()
	r := f.sync()
	gets, _ := f.s.take()
	if !slices.Equal(ids(r.Added), []string{"m/v2"}) || len(gets["m/v2/model.onnx"]) != 0 {
		t.Fatalf("added %v, read %v: want m/v2 taken with its files from the cache", r.Added, gets)
	}
	if got := f.copied()["m/v2/model.onnx"]; got != "good model" {
		t.Errorf("the copy of m/v2/model.onnx holds %q, want the content SHA256SUMS names", got)
	}

	cold := newFixture(t, mirror.Options{})
	cold.put(merge(version("m", "v2", false, map[string]string{"model.yaml": good["model.yaml"], "model.onnx": "evil model"}),
		map[string]string{"m/v2/SHA256SUMS": sumsOf(good)}))
	if r := cold.sync(); len(r.Refused) != 1 || !errors.Is(r.Refused[0].Err, mirror.ErrDigestMismatch) {
		t.Errorf("a cold cache: refused %v, want the mismatch", r.Refused)
	}
}

// TestRoutingRule: a model's routing.yaml is copied when it changes, waits while a
// version of its model is not yet whole (it may name it), and goes when it is deleted.
func TestRoutingRule(t *testing.T) {
	f := newFixture(t, mirror.Options{})
	f.put(iris())
	f.sync()
	f.sync()
	weighted := "strategy: weighted\nweights: {v1: 50, v3: 50}\n"
	f.put(merge(version("iris", "v3", false, map[string]string{"model.yaml": echoYAML("iris three")}),
		map[string]string{"iris/routing.yaml": weighted}))
	r := f.sync()
	if len(r.Rules) != 0 || f.copied()["iris/routing.yaml"] != iris()["iris/routing.yaml"] {
		t.Errorf("poll 1: rules %v, routing.yaml %q: want the old rule while iris/v3 is pending", r.Rules, f.copied()["iris/routing.yaml"])
	}
	r = f.sync()
	if !slices.Equal(ids(r.Added), []string{"iris/v3"}) || !slices.Equal(r.Rules, []string{"iris"}) || f.copied()["iris/routing.yaml"] != weighted {
		t.Errorf("poll 2: added %v, rules %v: want iris/v3 and the new rule with it", r.Added, r.Rules)
	}
	spec, err := repository.New(repository.Options{Dir: f.m.Dir(), Backends: backend.Catalogue{echo.Backend{}}}).Model(context.Background(), "iris")
	if err != nil || spec.Rule.Strategy != registry.Weighted || len(spec.Versions) != 3 || spec.Versions[2].Err != nil {
		t.Errorf("the repository reads %+v, %v", spec, err)
	}
	f.b.Delete(t, "iris/routing.yaml")
	r = f.sync()
	if _, ok := f.copied()["iris/routing.yaml"]; ok || !slices.Equal(r.Rules, []string{"iris"}) {
		t.Errorf("routing.yaml deleted: rules %v, still in the copy: %v", r.Rules, ok)
	}
}

// TestRoutingRuleRefused: a routing.yaml uploaded with a version that is refused
// waits, with RulesWaiting and one log line saying so (at its second poll), while
// nothing of the version is in the copy (a rule naming it would route to a version
// that is not there); it is copied once the version is uploaded again whole. A first
// sync's one-poll wait for versions without SHA256SUMS logs nothing.
func TestRoutingRuleRefused(t *testing.T) {
	f := newFixture(t, mirror.Options{})
	f.put(iris())
	f.sync()
	f.sync()
	static := "strategy: static\nversion: v3\n"
	if strings.Contains(f.log.String(), "routing.yaml changed in the store but waits") {
		t.Errorf("the first sync's wait for iris/v2's listing to hold still is logged:\n%s", f.log)
	}
	good := map[string]string{"model.yaml": echoYAML("iris three")}
	f.put(map[string]string{"iris/v3/model.yaml": good["model.yaml"], "iris/v3/SHA256SUMS": sumsOf(map[string]string{"model.yaml": "other"}), "iris/routing.yaml": static})
	for poll := 1; poll <= 2; poll++ {
		r := f.sync()
		if len(r.Refused) != 1 || len(r.Rules) != 0 || !slices.Equal(r.RulesWaiting, []string{"iris"}) || f.copied()["iris/routing.yaml"] != iris()["iris/routing.yaml"] {
			t.Errorf("poll %d: refused %v, rules %v, waiting %v, routing.yaml %q: want the old rule while iris/v3 is refused", poll, r.Refused, r.Rules, r.RulesWaiting, f.copied()["iris/routing.yaml"])
		}
	}
	if n := strings.Count(f.log.String(), "routing.yaml changed in the store but waits"); n != 1 {
		t.Errorf("the wait logged %d times over two polls, want once:\n%s", n, f.log)
	}
	f.put(version("iris", "v3", true, good))
	if r := f.sync(); !slices.Equal(ids(r.Added), []string{"iris/v3"}) || !slices.Equal(r.Rules, []string{"iris"}) || len(r.RulesWaiting) != 0 || f.copied()["iris/routing.yaml"] != static {
		t.Errorf("iris/v3 whole: added %v, rules %v, waiting %v: want iris/v3 and its rule", r.Added, r.Rules, r.RulesWaiting)
	}

}

// TestThousandVersions: the requests a poll of 1,000 versions costs: all read once
// on the first poll (with SHA256SUMS: taken at once), none on the next.
func TestThousandVersions(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 3,000 files")
	}
	f := newFixture(t, mirror.Options{})
	for i := range 1000 {
		f.put(version("m"+strconv.Itoa(i/10), "v"+strconv.Itoa(i%10), true, map[string]string{"model.yaml": echoYAML(strconv.Itoa(i)), "model.onnx": "weights " + strconv.Itoa(i)}))
	}
	r := f.sync()
	if len(r.Added) != 1000 || r.Lists != 1 || r.Gets != 3000 {
		t.Errorf("first poll: %d added, %d lists, %d gets: want 1000 added in 1 list and 3000 gets", len(r.Added), r.Lists, r.Gets)
	}
	t.Logf("first poll of 1,000 versions (3,000 objects): %d lists, %d gets, %d bytes, %s", r.Lists, r.Gets, r.BytesDownloaded, r.Duration.Round(time.Millisecond))
	r = f.sync()
	if r.Lists != 1 || r.Gets != 0 || len(r.Added)+len(r.Changed)+len(r.Removed) != 0 {
		t.Errorf("an unchanged poll: %d lists, %d gets, %+v", r.Lists, r.Gets, r)
	}
	t.Logf("an unchanged poll of 1,000 versions: %d list (a bucket pages it: 3 requests of 1,000 keys), %d gets, %s", r.Lists, r.Gets, r.Duration.Round(time.Millisecond))
	f.put(version("m0", "v0", true, map[string]string{"model.yaml": echoYAML("changed"), "model.onnx": "weights 0"}))
	r = f.sync()
	if r.Gets != 2 || !slices.Equal(ids(r.Changed), []string{"m0/v0"}) {
		t.Errorf("one version changed: %d gets (want SHA256SUMS and model.yaml), changed %v", r.Gets, r.Changed)
	}
}

// TestDamagedState: a state file that is not what a poll writes (cut short, or with
// names that would leave the copy) is not followed out of the cache directory; the
// copy starts without what it cannot trust and fills from the store.
func TestDamagedState(t *testing.T) {
	tests := []struct {
		name   string
		damage func(string) string
	}{
		{"cut short", func(s string) string { return s[:len(s)/2] }},
		{"a path out of the copy", func(s string) string {
			return strings.Replace(s, `"vocab/words.txt"`, `"../../../escaped"`, 1)
		}},
		{"a digest out of the cache", func(s string) string {
			return strings.Replace(s, `"`+digest("a b c")+`"`, `"../../state.json"`, 1)
		}},
		{"a model name out of the copy", func(s string) string {
			return strings.Replace(s, `"model": "iris"`, `"model": ".."`, 1)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, mirror.Options{})
			f.put(iris())
			f.sync()
			f.sync()
			f.m.Close()
			name := filepath.Join(f.cache, "state.json")
			b, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			damaged := tt.damage(string(b))
			if damaged == string(b) {
				t.Fatal("the damage changed nothing")
			}
			if err := os.WriteFile(name, []byte(damaged), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.RemoveAll(f.m.Dir()); err != nil {
				t.Fatal(err)
			}
			f.open(f.s)
			if _, ok := f.copied()["iris/v1/model.yaml"]; ok {
				t.Errorf("iris/v1 was restored from a damaged state")
			}
			for _, p := range []string{filepath.Join(f.cache, "..", "escaped"), filepath.Join(f.cache, "escaped"), filepath.Join(filepath.Dir(f.cache), "escaped")} {
				if _, err := os.Stat(p); err == nil {
					t.Errorf("%s was written, outside the copy", p)
				}
			}
			f.sync()
			f.sync()
			if got, want := f.copied(), served(); !maps.Equal(got, want) {
				t.Errorf("after two polls the copy holds %v", slices.Sorted(maps.Keys(got)))
			}
		})
	}
}

// TestSettle: a process's first sync takes a version without SHA256SUMS at once, by
// polling again after a short wait, and a repository with nothing pending costs one
// poll.
func TestSettle(t *testing.T) {
	f := newFixture(t, mirror.Options{})
	f.put(iris())
	r, err := f.m.Settle(context.Background(), 10*time.Millisecond)
	if err != nil || !slices.Equal(ids(r.Added), []string{"iris/v1", "iris/v2"}) || r.Lists != 2 || len(r.Pending) != 0 {
		t.Errorf("Settle: %v, added %v, %d lists, pending %v: want both versions in two polls", err, r.Added, r.Lists, r.Pending)
	}
	if got, want := f.copied(), served(); !maps.Equal(got, want) {
		t.Errorf("the copy holds %v", slices.Sorted(maps.Keys(got)))
	}
	f.open(f.s)
	if r, err := f.m.Settle(context.Background(), time.Hour); err != nil || r.Lists != 1 {
		t.Errorf("Settle of a repository the cache holds: %v, %d lists: want one poll, no wait", err, r.Lists)
	}
}
