package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/inferd/inferd/internal/store"
)

// Conformance checks that s, which reads b's repository, behaves as store.Store says:
// listings (sorted, below a prefix, past one page), reads (whole, from an offset, of
// one content only) and the errors of a missing object and a changed one. With an
// Outage it also stops the server and checks that s answers ErrUnavailable, within a
// bound, and reads again once the server is back. Each case writes below a prefix of
// its own, so b need not start empty.
func Conformance(t *testing.T, b Bucket, s store.Store) {
	t.Run("list sorted at every depth", func(t *testing.T) {
		objs := map[string]string{
			"list/b/v1/model.onnx":    "model b",
			"list/a/v2/model.yaml":    "backend: onnx\n",
			"list/a/v1/model.onnx":    "model a",
			"list/a/v1/SHA256SUMS":    "",
			"list/routing.yaml":       "{}",
			"list/a/v1/sub/vocab.txt": "x",
		}
		for k, v := range objs {
			b.Put(t, k, []byte(v))
		}
		got := list(t, s, "list/")
		var keys []string
		for _, o := range got {
			keys = append(keys, o.Key)
			if want := int64(len(objs[o.Key])); o.Size != want {
				t.Errorf("%s: size %d, want %d", o.Key, o.Size, want)
			}
			if o.ETag == "" || o.Modified.IsZero() {
				t.Errorf("%s: ETag %q, modified %v: want both", o.Key, o.ETag, o.Modified)
			}
		}
		want := []string{"list/a/v1/SHA256SUMS", "list/a/v1/model.onnx", "list/a/v1/sub/vocab.txt",
			"list/a/v2/model.yaml", "list/b/v1/model.onnx", "list/routing.yaml"}
		if !slices.Equal(keys, want) {
			t.Errorf("List(list/) = %q, want %q", keys, want)
		}
		if got := list(t, s, "list/a/"); len(got) != 4 {
			t.Errorf("List(list/a/) = %d objects, want 4", len(got))
		}
		if got := list(t, s, "list/nothing/"); len(got) != 0 {
			t.Errorf("List of an empty prefix = %v, want none", got)
		}
	})

	t.Run("list past a page", func(t *testing.T) {
		const n = 1005 // S3's and GCS's pages hold 1,000 keys
		for i := range n {
			b.Put(t, fmt.Sprintf("many/m/%04d/model.onnx", i), []byte{byte(i)})
		}
		got := list(t, s, "many/")
		if len(got) != n {
			t.Fatalf("List of %d objects returned %d", n, len(got))
		}
		if !slices.IsSortedFunc(got, func(a, b store.Object) int { return strings.Compare(a.Key, b.Key) }) {
			t.Error("the listing is not sorted by key")
		}
	})

	t.Run("get whole and from an offset", func(t *testing.T) {
		data := bytes.Repeat([]byte("0123456789"), 100_000) // 1 MB
		b.Put(t, "get/m/v1/model.onnx", data)
		o := only(t, s, "get/")
		if got, ob := read(t, s, o.Key, 0, ""); !bytes.Equal(got, data) || ob.ETag != o.ETag || ob.Size != o.Size {
			t.Errorf("Get read %d bytes (object %+v), want %d (listed %+v)", len(got), ob, len(data), o)
		}
		if got, _ := read(t, s, o.Key, 999_990, o.ETag); string(got) != "0123456789" {
			t.Errorf("Get from offset 999990 read %q, want the last 10 bytes", got)
		}
	})

	t.Run("a changed object is not read as the one listed", func(t *testing.T) {
		b.Put(t, "changed/m/v1/model.onnx", []byte("first content"))
		old := only(t, s, "changed/")
		b.Put(t, "changed/m/v1/model.onnx", []byte("second, longer content"))
		now := only(t, s, "changed/")
		if now.ETag == old.ETag {
			t.Fatalf("the ETag %q did not change when the content did", now.ETag)
		}
		if _, err := readErr(s, old.Key, 0, old.ETag); !errors.Is(err, store.ErrChanged) {
			t.Errorf("Get of the old ETag: %v, want ErrChanged", err)
		}
		if got, _ := read(t, s, now.Key, 0, now.ETag); string(got) != "second, longer content" {
			t.Errorf("Get of the new ETag read %q", got)
		}
		if again := only(t, s, "changed/"); again.ETag != now.ETag {
			t.Errorf("the ETag of unchanged content went from %q to %q", now.ETag, again.ETag)
		}
	})

	t.Run("a missing object", func(t *testing.T) {
		if _, err := readErr(s, "missing/m/v1/model.onnx", 0, ""); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("Get of a missing key: %v, want ErrNotFound", err)
		}
		b.Put(t, "deleted/m/v1/model.onnx", []byte("gone soon"))
		o := only(t, s, "deleted/")
		b.Delete(t, o.Key)
		if _, err := readErr(s, o.Key, 0, o.ETag); !errors.Is(err, store.ErrNotFound) && !errors.Is(err, store.ErrChanged) {
			t.Errorf("Get of a deleted key: %v, want ErrNotFound or ErrChanged", err)
		}
		if got := list(t, s, "deleted/"); len(got) != 0 {
			t.Errorf("a deleted object is still listed: %v", got)
		}
	})

	t.Run("names without credentials", func(t *testing.T) {
		if got := s.String(); got == "" || strings.ContainsAny(got, "@?") {
			t.Errorf("String() = %q: want the repository's URL, without credentials", got)
		}
	})

	out, ok := b.(Outage)
	if !ok {
		return
	}
	t.Run("the server down and back", func(t *testing.T) {
		b.Put(t, "outage/m/v1/model.onnx", []byte("still here"))
		out.Stop(t)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		start := time.Now()
		if _, err := s.List(ctx, "outage/"); !errors.Is(err, store.ErrUnavailable) {
			t.Errorf("List with the server down: %v, want ErrUnavailable", err)
		}
		if _, _, err := s.Get(ctx, "outage/m/v1/model.onnx", 0, ""); !errors.Is(err, store.ErrUnavailable) {
			t.Errorf("Get with the server down: %v, want ErrUnavailable", err)
		}
		t.Logf("a List and a Get with the server down failed after %s", time.Since(start).Round(time.Millisecond))
		out.Start(t)
		if o := only(t, s, "outage/"); o.Size != int64(len("still here")) {
			t.Errorf("after the restart: %+v", o)
		}
	})
}

func list(t *testing.T, s store.Store, prefix string) []store.Object {
	t.Helper()
	objs, err := s.List(context.Background(), prefix)
	if err != nil {
		t.Fatalf("List(%q): %v", prefix, err)
	}
	return objs
}

// only is the one object below prefix.
func only(t *testing.T, s store.Store, prefix string) store.Object {
	t.Helper()
	objs := list(t, s, prefix)
	if len(objs) != 1 {
		t.Fatalf("List(%q) = %v, want one object", prefix, objs)
	}
	return objs[0]
}

func read(t *testing.T, s store.Store, key string, offset int64, etag string) ([]byte, store.Object) {
	t.Helper()
	rc, o, err := s.Get(context.Background(), key, offset, etag)
	if err != nil {
		t.Fatalf("Get(%q, %d, %q): %v", key, offset, etag, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatalf("reading %q: %v", key, err)
	}
	return b, o
}

// readErr is the error of a Get or of reading its body.
func readErr(s store.Store, key string, offset int64, etag string) ([]byte, error) {
	rc, _, err := s.Get(context.Background(), key, offset, etag)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return io.ReadAll(rc)
}
