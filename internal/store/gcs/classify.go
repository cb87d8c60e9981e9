package gcs

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"cloud.google.com/go/auth"
	"cloud.google.com/go/storage"
	"google.golang.org/api/googleapi"

	"github.com/inferd/inferd/internal/store"
)

// classify wraps err, the library's, with the sentinel a caller acts on. Neither the
// library's errors nor the store's answers carry a credential: a token travels in a
// header, which no error repeats.
func (s *Store) classify(ctx context.Context, what string, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("%s: %w", what, ctx.Err()) // the caller's own end
	}
	if sentinel(err) != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return fmt.Errorf("%s: %w: %w", what, kind(err), err)
}

// sentinel is the store's sentinel err already wraps, or nil.
func sentinel(err error) error {
	for _, s := range []error{store.ErrNotFound, store.ErrChanged, store.ErrUnavailable, store.ErrDenied} {
		if errors.Is(err, s) {
			return s
		}
	}
	return nil
}

// kind is the sentinel of one of the library's errors.
func kind(err error) error {
	switch {
	case errors.Is(err, storage.ErrObjectNotExist), errors.Is(err, storage.ErrBucketNotExist):
		return store.ErrNotFound
	}
	var gerr *googleapi.Error
	if errors.As(err, &gerr) {
		return status(gerr.Code)
	}
	// A token the credentials could not get: refused is a configuration to fix,
	// anything else (the metadata server unreachable, say) may pass.
	var aerr *auth.Error
	if errors.As(err, &aerr) && aerr.Response != nil {
		if c := aerr.Response.StatusCode; c == http.StatusBadRequest || c == http.StatusUnauthorized || c == http.StatusForbidden {
			return store.ErrDenied
		}
	}
	return store.ErrUnavailable
}

// status is the sentinel of an HTTP status GCS answered with.
func status(code int) error {
	switch code {
	case http.StatusUnauthorized, http.StatusForbidden:
		return store.ErrDenied
	case http.StatusNotFound:
		return store.ErrNotFound
	case http.StatusPreconditionFailed:
		return store.ErrChanged
	}
	return store.ErrUnavailable
}
