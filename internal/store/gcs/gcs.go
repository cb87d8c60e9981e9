package gcs

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"cloud.google.com/go/storage"
	"github.com/googleapis/gax-go/v2"
	"google.golang.org/api/iterator"
	"google.golang.org/api/option"

	"github.com/inferd/inferd/internal/store"
)

// pageSize is the keys of one page of a listing: GCS's own default and maximum, asked
// for explicitly because the emulator otherwise answers all keys in one page, which
// would hide the cost of a listing from the tests that count it.
const pageSize = 1000

// Options configure a Store. The zero value is the defaults below.
type Options struct {
	// ClientOptions are given to the Google client after inferd's own, so they win: a
	// test's option.WithHTTPClient, to count requests, say. Production needs none: the
	// client finds Application Default Credentials and STORAGE_EMULATOR_HOST itself.
	ClientOptions []option.ClientOption
	// Attempts is how many times a request is made when it fails in a way worth
	// retrying (a refused or reset connection, a 408, 429 or 5xx) before the store is
	// reported ErrUnavailable. 0 means 3.
	Attempts int
	// Timeout bounds one request with its retries (a page of a listing, the opening of
	// a read) and a read's wait for its next bytes. 0 means 30 s.
	Timeout time.Duration
}

// Store reads the objects of a bucket below a prefix.
type Store struct {
	client  *storage.Client
	bucket  *storage.BucketHandle
	name    string // gs://bucket/prefix, for String and errors
	prefix  string // "" or ending in '/'
	timeout time.Duration
}

// New returns the Store of rawURL, gs://bucket or gs://bucket/prefix. It makes no
// request: a reader whose role lets it list and read objects may not be allowed to read
// the bucket's own metadata, so the first List is what tells whether the bucket can be
// read.
func New(ctx context.Context, rawURL string, opts Options) (*Store, error) {
	bucket, prefix, err := parseURL(rawURL)
	if err != nil {
		return nil, err
	}
	if opts.Attempts <= 0 {
		opts.Attempts = 3
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 30 * time.Second
	}
	name := "gs://" + bucket
	if prefix != "" {
		name += "/" + strings.TrimSuffix(prefix, "/")
	}
	// inferd only reads: a token for read-only access is all it asks for.
	copts := append([]option.ClientOption{option.WithScopes(storage.ScopeReadOnly)}, opts.ClientOptions...)
	client, err := storage.NewClient(ctx, copts...)
	if err != nil {
		return nil, fmt.Errorf("%s: the Google Cloud Storage client: %w", name, err)
	}
	// The library retries an idempotent request until its context ends, which is a
	// minute or more of silence from a store that is down; a poller that learns of it
	// in seconds keeps serving what it has and says why.
	client.SetRetry(
		storage.WithBackoff(gax.Backoff{Initial: 100 * time.Millisecond, Max: 2 * time.Second, Multiplier: 2}),
		storage.WithMaxAttempts(opts.Attempts),
		storage.WithMaxRetryDuration(opts.Timeout),
	)
	return &Store{client: client, bucket: client.Bucket(bucket), name: name, prefix: prefix, timeout: opts.Timeout}, nil
}

// String is gs://bucket/prefix: the URL names no credentials, since they never are in
// it.
func (s *Store) String() string { return s.name }

// Close releases the client's connections.
func (s *Store) Close() error { return s.client.Close() }

// List lists the objects below prefix, a page of 1,000 keys a request. Objects whose
// names end in '/' are left out: consoles and tools that mimic folders make them, and
// they are no file of a model.
func (s *Store) List(ctx context.Context, prefix string) ([]store.Object, error) {
	q := &storage.Query{Prefix: s.prefix + prefix}
	// Only what an Object holds: a page of full object resources is several times
	// the bytes.
	if err := q.SetAttrSelection([]string{"Name", "Size", "Generation", "Updated"}); err != nil {
		return nil, fmt.Errorf("%s: %w", s.name, err)
	}
	var objs []store.Object
	token := ""
	for {
		var page []*storage.ObjectAttrs
		err := s.call(ctx, func(ctx context.Context) (err error) {
			// A pager of its own for each page, so each page's request has the
			// context of its own timeout.
			token, err = iterator.NewPager(s.bucket.Objects(ctx, q), pageSize, token).NextPage(&page)
			return err
		})
		if err != nil {
			return nil, s.classify(ctx, s.name+": listing "+strconv.Quote(prefix), err)
		}
		for _, a := range page {
			if strings.HasSuffix(a.Name, "/") || !strings.HasPrefix(a.Name, s.prefix) {
				continue
			}
			objs = append(objs, store.Object{
				Key:      strings.TrimPrefix(a.Name, s.prefix),
				Size:     a.Size,
				ETag:     strconv.FormatInt(a.Generation, 10),
				Modified: a.Updated,
			})
		}
		if token == "" {
			break
		}
	}
	// GCS lists by the bytes of names, which is the order of keys; sorted all the same
	// since the interface promises it whatever a server does.
	slices.SortFunc(objs, func(a, b store.Object) int { return strings.Compare(a.Key, b.Key) })
	return objs, nil
}

// call runs one request, retries included, within the store's timeout.
func (s *Store) call(ctx context.Context, f func(context.Context) error) error {
	cctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	err := f(cctx)
	if err != nil && ctx.Err() == nil && cctx.Err() != nil {
		return fmt.Errorf("%w: no answer within %s: %v", store.ErrUnavailable, s.timeout, err)
	}
	return err
}
