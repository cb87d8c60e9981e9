package s3

import (
	"fmt"
	"net/url"
	"strings"
)

// location is where a repository is: a bucket, and the prefix of its keys ("" or
// ending with '/').
type location struct {
	bucket, prefix string
}

// String is the repository's URL without a trailing '/'.
func (l location) String() string {
	return strings.TrimSuffix("s3://"+l.bucket+"/"+l.prefix, "/")
}

// parse reads "s3://bucket/prefix". Its errors quote the URL without what could be
// credentials, since MODELS_DIR is logged.
func parse(raw string) (location, error) {
	shown := redact(raw)
	u, err := url.Parse(raw)
	if err != nil {
		if ue, ok := err.(*url.Error); ok {
			err = ue.Err // its message repeats the whole URL
		}
		return location{}, fmt.Errorf("repository %q: not a URL: %v", shown, err)
	}
	switch {
	case u.Scheme != "s3":
		return location{}, fmt.Errorf("repository %q: not an s3:// URL", shown)
	case u.User != nil:
		return location{}, fmt.Errorf("repository %q: credentials do not go in the URL: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or use a profile or role", shown)
	case u.Opaque != "":
		return location{}, fmt.Errorf("repository %q: want s3://bucket/prefix", shown)
	case u.Port() != "":
		return location{}, fmt.Errorf("repository %q: a bucket has no port: the server's address goes in AWS_ENDPOINT_URL_S3 (http://host:port)", shown)
	case u.RawQuery != "" || u.ForceQuery || u.Fragment != "":
		return location{}, fmt.Errorf("repository %q: an s3:// URL takes no query or fragment", shown)
	}
	if err := checkBucket(u.Host); err != nil {
		return location{}, fmt.Errorf("repository %q: %w", shown, err)
	}
	prefix := strings.TrimPrefix(u.Path, "/")
	if prefix != "" {
		prefix = strings.TrimSuffix(prefix, "/")
		for _, seg := range strings.Split(prefix, "/") {
			if seg == "" || seg == "." || seg == ".." {
				return location{}, fmt.Errorf("repository %q: the prefix %q has an empty, '.' or '..' segment", shown, prefix)
			}
		}
		prefix += "/"
	}
	return location{bucket: u.Host, prefix: prefix}, nil
}

// checkBucket holds a name to S3's rules for general purpose buckets, which
// S3-compatible servers follow too: a name outside them is a typo, better told at
// start-up than as a 400 at every poll.
func checkBucket(name string) error {
	if name == "" {
		return fmt.Errorf("no bucket: want s3://bucket/prefix")
	}
	if len(name) < 3 || len(name) > 63 {
		return fmt.Errorf("bucket %q: a bucket's name has 3 to 63 characters", name)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		alnum := c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
		if !alnum && c != '-' && c != '.' {
			return fmt.Errorf("bucket %q: a bucket's name has only lowercase letters, digits, '-' and '.'", name)
		}
		if !alnum && (i == 0 || i == len(name)-1) {
			return fmt.Errorf("bucket %q: a bucket's name begins and ends with a letter or a digit", name)
		}
	}
	if strings.Contains(name, "..") {
		return fmt.Errorf("bucket %q: a bucket's name has no two '.' in a row", name)
	}
	return nil
}

// redact hides what stands between "://" and an '@' of the authority.
func redact(raw string) string {
	scheme, rest, ok := strings.Cut(raw, "://")
	if !ok {
		return raw
	}
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	if at := strings.LastIndex(rest[:end], "@"); at >= 0 {
		return scheme + "://REDACTED@" + rest[at+1:]
	}
	return raw
}
