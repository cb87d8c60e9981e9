package s3

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"

	"github.com/aws/smithy-go"

	"github.com/inferd/inferd/internal/store"
)

// classify wraps an error of the SDK with the sentinel a caller acts on: that of the
// error's code when it names refused credentials, which some servers answer with
// another status than 403, else that of the HTTP status, since a HEAD's error has no
// body to name its code. listing tells an error of ListObjectsV2.
func classify(ctx context.Context, name string, err error, listing bool) error {
	if ctx.Err() != nil {
		return fmt.Errorf("%s: %w", name, err) // the caller's own deadline or cancel
	}
	if provider := credentialsError(err); provider != nil {
		// The request was never sent: its credentials could not be had. The status
		// of a provider's answer (IMDS, STS) says nothing of the object.
		var ne net.Error
		if st := status(provider); st >= 500 || st == 429 || st == 0 && errors.As(provider, &ne) {
			return fmt.Errorf("%s: %w: %w", name, store.ErrUnavailable, err)
		}
		return fmt.Errorf("%s: %w: no usable AWS credentials (set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, a profile, or a role): %w", name, store.ErrDenied, err)
	}
	code := ""
	if ae, ok := errors.AsType[smithy.APIError](err); ok {
		code = ae.ErrorCode()
	}
	st := status(err)
	switch {
	case denied[code] || code == "NoSuchBucket" || (listing && st == 404):
		// A missing bucket is not ErrNotFound, which would read as an empty
		// repository: the configuration names a bucket that is not there. Nor is a
		// listing's 404, which no missing object explains.
		return fmt.Errorf("%s: %w: %w", name, store.ErrDenied, err)
	case st == 404 || code == "NoSuchKey" || code == "NotFound":
		return fmt.Errorf("%s: %w: %w", name, store.ErrNotFound, err)
	case st == 412 || code == "PreconditionFailed":
		return fmt.Errorf("%s: %w: %w", name, store.ErrChanged, err)
	case st == 401 || st == 403:
		return fmt.Errorf("%s: %w: %w", name, store.ErrDenied, err)
	case st >= 500 || st == 429 || st == 408 || code == "SlowDown" || code == "RequestTimeout":
		return fmt.Errorf("%s: %w: %w", name, store.ErrUnavailable, err)
	case st >= 400:
		// Another refusal of the request (a wrong region, a malformed header): it
		// will be refused again until the configuration changes.
		return fmt.Errorf("%s: %w: %w", name, store.ErrDenied, err)
	default:
		// No answer: the connection refused, cut or silent, the name unknown.
		return fmt.Errorf("%s: %w: %w", name, store.ErrUnavailable, err)
	}
}

// denied are the codes of credentials the store refused, whatever status a
// compatible server answers them with (versitygw answers an unknown access key with
// 404 XAdminUserNotFound).
var denied = map[string]bool{
	"XAdminUserNotFound":    true,
	"AccessDenied":          true,
	"InvalidAccessKeyId":    true,
	"SignatureDoesNotMatch": true,
	"ExpiredToken":          true,
	"InvalidToken":          true,
	"TokenRefreshRequired":  true,
}

// status is the HTTP status of the answer err comes from, or 0.
func status(err error) int {
	var re interface{ HTTPStatusCode() int }
	if errors.As(err, &re) {
		return re.HTTPStatusCode()
	}
	return 0
}

// credentialsError is the error of getting the request's credentials, if that is what
// failed: the error of another service than S3 (IMDS, STS, SSO) within err, or err
// itself when it failed in the SDK's "get identity" step without one (no credentials
// configured at all).
func credentialsError(err error) error {
	var found error
	var walk func(error)
	walk = func(e error) {
		for e != nil && found == nil {
			if oe, ok := e.(*smithy.OperationError); ok && oe.ServiceID != "S3" {
				found = oe
				return
			}
			if j, ok := e.(interface{ Unwrap() []error }); ok {
				for _, x := range j.Unwrap() {
					walk(x)
				}
				return
			}
			e = errors.Unwrap(e)
		}
	}
	walk(err)
	if found == nil && status(err) == 0 && strings.Contains(err.Error(), "get identity: ") {
		found = err
	}
	return found
}
