package store

import (
	"context"
	"errors"
	"io"
	"time"
)

// Errors a Store answers with, wrapped with the key and the store's own words.
var (
	// ErrNotFound: no object has the key (it was deleted since it was listed, say).
	ErrNotFound = errors.New("no such object")
	// ErrChanged: the object is no longer the one Get was asked for (its ETag differs):
	// it was overwritten while it was being read.
	ErrChanged = errors.New("object changed")
	// ErrUnavailable: the store could not be reached or answered with an error of its
	// own (a 5xx, a timeout, a refused connection); trying again later may succeed.
	ErrUnavailable = errors.New("store unavailable")
	// ErrDenied: the store refused the credentials or the request (a 401 or 403):
	// trying again will not help until the configuration changes.
	ErrDenied = errors.New("access denied")
)

// Object is what a listing tells of one object.
type Object struct {
	// Key is the object's path below the repository's root, '/'-separated, with no
	// leading '/': "iris/v1/model.onnx".
	Key string
	// Size is its length in bytes.
	Size int64
	// ETag changes whenever the object's content does (S3's ETag, a GCS object's
	// generation); equal ETags of one key mean equal content.
	ETag string
	// Modified is when the object was last written, as the store says.
	Modified time.Time
}

// Store is a model repository's storage, read-only. Implementations are safe for
// concurrent use.
type Store interface {
	// List returns every object below prefix ("" for the whole repository; a prefix
	// ends with '/'), at any depth, sorted by key. It costs the store one request per
	// page of its listing (1,000 keys for S3 and GCS), never one per object.
	List(ctx context.Context, prefix string) ([]Object, error)
	// Get reads an object from offset on. When etag is not "", the read is of that
	// content only: if the object has changed since, Get (or a read of its body) fails
	// with ErrChanged rather than hand over bytes of another content. The Object
	// returned describes what is read.
	Get(ctx context.Context, key string, offset int64, etag string) (io.ReadCloser, Object, error)
	// String names the store for logs and messages, without credentials:
	// "s3://bucket/prefix".
	String() string
}
