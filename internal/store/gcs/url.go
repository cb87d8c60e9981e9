package gcs

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// ErrURL is wrapped by New's error for a repository URL it cannot read.
var ErrURL = errors.New("want gs://bucket or gs://bucket/prefix")

// parseURL splits gs://bucket/prefix into the bucket and the prefix of the
// repository's keys: "" or a path ending in '/'.
func parseURL(raw string) (bucket, prefix string, err error) {
	u, err := url.Parse(raw)
	if err != nil {
		// url.Error repeats the whole input, which may hold what the user meant as a
		// secret: say only what is wrong with it.
		var uerr *url.Error
		if errors.As(err, &uerr) {
			err = uerr.Err
		}
		return "", "", fmt.Errorf("repository URL: %w: %v", ErrURL, err)
	}
	if u.User != nil {
		return "", "", fmt.Errorf("repository URL gs://%s: %w: it has credentials before the bucket (user@); GCS reads Application Default Credentials, never credentials in the URL", u.Host, ErrURL)
	}
	bad := func(format string, args ...any) (string, string, error) {
		return "", "", fmt.Errorf("repository URL %q: %w: %s", raw, ErrURL, fmt.Sprintf(format, args...))
	}
	switch {
	case u.Scheme != "gs":
		return bad("the scheme is %q, not gs", u.Scheme)
	case u.Opaque != "":
		return bad("no // after gs:")
	case u.Port() != "":
		return bad("a bucket has no port (the emulator's address goes in STORAGE_EMULATOR_HOST)")
	case u.RawQuery != "" || u.ForceQuery:
		return bad("a query (?...) is not part of a repository URL")
	case u.Fragment != "" || strings.Contains(raw, "#"):
		return bad("a fragment (#...) is not part of a repository URL")
	}
	if err := checkBucket(u.Host); err != nil {
		return bad("%v", err)
	}
	p := strings.TrimPrefix(u.Path, "/")
	if p == "" {
		return u.Host, "", nil
	}
	for _, seg := range strings.Split(strings.TrimSuffix(p, "/"), "/") {
		switch seg {
		case "":
			return bad("the prefix %q has an empty segment (//)", p)
		case ".", "..":
			return bad("the prefix %q has a %q segment: object names are not resolved as paths", p, seg)
		}
	}
	return u.Host, strings.TrimSuffix(p, "/") + "/", nil
}

// checkBucket applies GCS's naming rules for buckets, so a typo is told at start rather
// than as the store's 400 at the first poll.
func checkBucket(name string) error {
	if name == "" {
		return errors.New("no bucket name")
	}
	limit := 63
	if strings.Contains(name, ".") {
		limit = 222 // a domain-named bucket; each of its dot-separated parts is at most 63
	}
	if len(name) < 3 || len(name) > limit {
		return fmt.Errorf("bucket %q: a bucket name has 3 to %d characters", name, limit)
	}
	for _, part := range strings.Split(name, ".") {
		if len(part) > 63 {
			return fmt.Errorf("bucket %q: each dot-separated part of a bucket name has at most 63 characters", name)
		}
	}
	for _, c := range name {
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '-', c == '_', c == '.':
		case c >= 'A' && c <= 'Z':
			return fmt.Errorf("bucket %q: bucket names are lower-case", name)
		default:
			return fmt.Errorf("bucket %q: a bucket name has only lower-case letters, digits, '-', '_' and '.', not %q", name, c)
		}
	}
	if !alnum(name[0]) || !alnum(name[len(name)-1]) {
		return fmt.Errorf("bucket %q: a bucket name starts and ends with a letter or a digit", name)
	}
	return nil
}

func alnum(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }
