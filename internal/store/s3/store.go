package s3

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"slices"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/inferd/inferd/internal/store"
)

// pageSize is the most keys a listing's page holds, S3's own bound.
const pageSize = 1000

// Store reads the objects of a bucket below a prefix.
type Store struct {
	loc    location
	client *awss3.Client
}

// New returns the Store of rawURL, "s3://bucket/prefix" (the prefix may be left out),
// configured as the AWS SDK configures itself: credentials from the default chain,
// AWS_REGION (or the shared config's region), and AWS_ENDPOINT_URL_S3 or
// AWS_ENDPOINT_URL for an S3-compatible server, which is then addressed path-style
// and, without a region, signed for us-east-1. New sends no request: a store that is
// down is told by the first List.
func New(ctx context.Context, rawURL string, opts Options) (*Store, error) {
	loc, err := parse(rawURL)
	if err != nil {
		return nil, err
	}
	var hc aws.HTTPClient = awshttp.NewBuildableClient().
		WithDialerOptions(func(d *net.Dialer) { d.Timeout = connectTimeout }).
		WithReadTimeout(readTimeout)
	if opts.HTTPClient != nil {
		hc = opts.HTTPClient
	}
	cfg, err := config.LoadDefaultConfig(ctx,
		config.WithHTTPClient(hc),
		config.WithRetryer(func() aws.Retryer {
			return retry.NewStandard(func(o *retry.StandardOptions) {
				o.MaxAttempts = DefaultAttempts
				o.MaxBackoff = maxBackoff
			})
		}))
	if err != nil {
		return nil, fmt.Errorf("%s: reading the AWS configuration: %w", loc, err)
	}
	client := awss3.NewFromConfig(cfg, func(o *awss3.Options) {
		// BaseEndpoint is set here from AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL or the
		// shared config's endpoint_url, by the SDK itself.
		if o.BaseEndpoint != nil {
			// S3-compatible servers seldom resolve a bucket's own host name.
			o.UsePathStyle = true
			if o.Region == "" {
				o.Region = defaultRegion
			}
		}
		// A ranged read, or an object uploaded without a checksum, is not
		// validated by the SDK: that is not worth a warning per read.
		o.DisableLogOutputChecksumValidationSkipped = true
		if opts.Attempts > 0 {
			o.RetryMaxAttempts = opts.Attempts // over AWS_MAX_ATTEMPTS
		}
	})
	if client.Options().Region == "" {
		return nil, fmt.Errorf("%s: no AWS region: set AWS_REGION to the bucket's region", loc)
	}
	return &Store{loc: loc, client: client}, nil
}

// String is the repository's URL, "s3://bucket/prefix".
func (s *Store) String() string { return s.loc.String() }

// name is an object's URL, for errors.
func (s *Store) name(key string) string { return "s3://" + s.loc.bucket + "/" + s.loc.prefix + key }

// List pages through ListObjectsV2 below prefix, pageSize keys a request. Keys no
// repository path can name ("a//b", "a/../b", a console's "folder/" marker) are left
// out, since Get would refuse them.
func (s *Store) List(ctx context.Context, prefix string) ([]store.Object, error) {
	full := s.loc.prefix
	if p := strings.TrimSuffix(prefix, "/"); p != "" {
		if !fs.ValidPath(p) {
			return nil, fmt.Errorf("%s: prefix %q: %w", s, prefix, store.ErrNotFound)
		}
		full += p + "/"
	}
	in := &awss3.ListObjectsV2Input{Bucket: aws.String(s.loc.bucket), MaxKeys: aws.Int32(pageSize)}
	if full != "" {
		in.Prefix = aws.String(full)
	}
	var objs []store.Object
	pages := awss3.NewListObjectsV2Paginator(s.client, in)
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			return nil, classify(ctx, s.name(strings.TrimPrefix(full, s.loc.prefix)), err, true)
		}
		for _, o := range page.Contents {
			key, ok := strings.CutPrefix(aws.ToString(o.Key), s.loc.prefix)
			if !ok || !fs.ValidPath(key) || key == "." {
				continue
			}
			objs = append(objs, store.Object{
				Key:      key,
				Size:     aws.ToInt64(o.Size),
				ETag:     unquote(aws.ToString(o.ETag)),
				Modified: aws.ToTime(o.LastModified),
			})
		}
	}
	// S3 lists in UTF-8 byte order, which is the order of keys; a compatible server
	// need not.
	slices.SortFunc(objs, func(a, b store.Object) int { return strings.Compare(a.Key, b.Key) })
	return objs, nil
}

// Get reads key with GetObject: from offset on with a Range, and of etag only with
// If-Match, which the store answers with 412 once the object has changed. The ETag it
// answers with is checked too, for a server that ignores If-Match.
func (s *Store) Get(ctx context.Context, key string, offset int64, etag string) (io.ReadCloser, store.Object, error) {
	name := s.name(key)
	if !fs.ValidPath(key) || key == "." {
		return nil, store.Object{}, fmt.Errorf("%s: %q: %w", s, key, store.ErrNotFound)
	}
	if offset < 0 {
		return nil, store.Object{}, fmt.Errorf("%s: negative offset %d", name, offset)
	}
	in := &awss3.GetObjectInput{Bucket: aws.String(s.loc.bucket), Key: aws.String(s.loc.prefix + key)}
	if offset > 0 {
		in.Range = aws.String("bytes=" + strconv.FormatInt(offset, 10) + "-")
	}
	if etag != "" {
		in.IfMatch = aws.String(quote(etag))
	}
	out, err := s.client.GetObject(ctx, in)
	if err != nil {
		if offset > 0 && status(err) == 416 {
			return s.atEnd(ctx, key, offset, etag)
		}
		return nil, store.Object{}, classify(ctx, name, err, false)
	}
	o := store.Object{Key: key, Size: aws.ToInt64(out.ContentLength), ETag: unquote(aws.ToString(out.ETag)), Modified: aws.ToTime(out.LastModified)}
	if etag != "" && o.ETag != etag {
		_ = out.Body.Close()
		return nil, store.Object{}, fmt.Errorf("%s: ETag %s, was %s: %w", name, o.ETag, etag, store.ErrChanged)
	}
	if offset > 0 {
		// "bytes 10-99/100": a server that ignored the Range would hand over the
		// object from its start.
		first, total, ok := contentRange(aws.ToString(out.ContentRange))
		if !ok || first != offset {
			_ = out.Body.Close()
			return nil, store.Object{}, fmt.Errorf("%s: asked for the bytes from %d on, answered with range %q: %w", name, offset, aws.ToString(out.ContentRange), store.ErrUnavailable)
		}
		o.Size = total
	}
	return &body{rc: out.Body, name: name}, o, nil
}

// atEnd answers a read from the end of an object (a download resumed after its last
// byte), which S3 refuses as a range outside it, with an empty body.
func (s *Store) atEnd(ctx context.Context, key string, offset int64, etag string) (io.ReadCloser, store.Object, error) {
	name := s.name(key)
	in := &awss3.HeadObjectInput{Bucket: aws.String(s.loc.bucket), Key: aws.String(s.loc.prefix + key)}
	if etag != "" {
		in.IfMatch = aws.String(quote(etag))
	}
	out, err := s.client.HeadObject(ctx, in)
	if err != nil {
		return nil, store.Object{}, classify(ctx, name, err, false)
	}
	o := store.Object{Key: key, Size: aws.ToInt64(out.ContentLength), ETag: unquote(aws.ToString(out.ETag)), Modified: aws.ToTime(out.LastModified)}
	if etag != "" && o.ETag != etag {
		return nil, store.Object{}, fmt.Errorf("%s: ETag %s, was %s: %w", name, o.ETag, etag, store.ErrChanged)
	}
	if offset != o.Size {
		return nil, store.Object{}, fmt.Errorf("%s: offset %d is past the object's %d bytes", name, offset, o.Size)
	}
	return io.NopCloser(strings.NewReader("")), o, nil
}

// contentRange reads "bytes FIRST-LAST/TOTAL".
func contentRange(v string) (first, total int64, ok bool) {
	r, ok := strings.CutPrefix(v, "bytes ")
	if !ok {
		return 0, 0, false
	}
	span, size, ok := strings.Cut(r, "/")
	if !ok {
		return 0, 0, false
	}
	from, _, ok := strings.Cut(span, "-")
	if !ok {
		return 0, 0, false
	}
	first, err1 := strconv.ParseInt(from, 10, 64)
	total, err2 := strconv.ParseInt(size, 10, 64)
	return first, total, errors.Join(err1, err2) == nil
}

// S3 quotes its ETags; the repository's index and logs show them bare.
func unquote(etag string) string { return strings.Trim(etag, `"`) }

func quote(etag string) string { return `"` + etag + `"` }
