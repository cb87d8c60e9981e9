package mirror

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"io/fs"
	"path"
	"strings"
)

// SumsFile is the name of a version's digests file.
const SumsFile = "SHA256SUMS"

// maxSumsBytes caps SHA256SUMS, which is read whole: a line per file of a version is a
// few kilobytes for the largest; a megabyte leaves room and stops a file without end.
const maxSumsBytes = 1 << 20

// parseSums reads GNU sha256sum's output: "<hex>  <path>" (text mode) or
// "<hex> *<path>" (binary mode), a line starting with '\' when the path is escaped
// (a '\' or a newline in it), and the BSD-style "SHA256 (<path>) = <hex>" of
// sha256sum --tag. Paths are relative to the version's directory; "./" before them
// is dropped. An entry for SHA256SUMS itself is ignored: a file cannot hold its own
// digest, and `sha256sum * > SHA256SUMS` lists the empty file the shell made; nor can
// it hold its signature's (SHA256SUMS.sig, which a second run of sha256sum * lists). A line
// that is none of these refuses the whole file, since a list read in part would leave
// files unverified.
func parseSums(data []byte) (map[string]string, error) {
	sums := map[string]string{}
	for i, line := range bytes.Split(data, []byte("\n")) {
		s := strings.TrimSuffix(string(line), "\r")
		if strings.TrimSpace(s) == "" {
			continue
		}
		name, digest, err := sumsLine(s)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", i+1, err)
		}
		if name == SumsFile || sidecar(name) {
			continue
		}
		if d, dup := sums[name]; dup && d != digest {
			return nil, fmt.Errorf("line %d: %s is listed twice, with different digests", i+1, name)
		}
		sums[name] = digest
	}
	if len(sums) == 0 {
		return nil, fmt.Errorf("it lists no file")
	}
	return sums, nil
}

func sumsLine(s string) (name, digest string, err error) {
	escaped := strings.HasPrefix(s, `\`)
	if escaped {
		s = s[1:]
	}
	if rest, ok := strings.CutPrefix(s, "SHA256 ("); ok {
		i := strings.LastIndex(rest, ") = ")
		if i < 0 {
			return "", "", fmt.Errorf("want SHA256 (<path>) = <hex digest>")
		}
		name, digest = rest[:i], rest[i+len(") = "):]
	} else {
		const n = 2 * 32 // hex digits of a SHA-256 digest
		if len(s) < n+3 || s[n] != ' ' || (s[n+1] != ' ' && s[n+1] != '*') {
			return "", "", fmt.Errorf("want <hex digest>, two spaces (or a space and '*') and a path, as sha256sum writes")
		}
		name, digest = s[n+2:], s[:n]
	}
	if b, err := hex.DecodeString(digest); err != nil || len(b) != 32 {
		return "", "", fmt.Errorf("%q is not a SHA-256 digest (64 hex digits)", digest)
	}
	if escaped {
		if name, err = unescape(name); err != nil {
			return "", "", err
		}
	}
	clean := name
	for strings.HasPrefix(clean, "./") {
		clean = strings.TrimLeft(clean[2:], "/")
	}
	clean = path.Clean(clean)
	if !fs.ValidPath(clean) || clean == "." || strings.HasPrefix(name, "/") {
		return "", "", fmt.Errorf("%q is not a path inside the version's directory", name)
	}
	return clean, strings.ToLower(digest), nil
}

// unescape undoes sha256sum's escapes of a path: \\, \n and \r.
func unescape(s string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			continue
		}
		if i+1 == len(s) {
			return "", fmt.Errorf("%q ends in a lone '\\'", s)
		}
		i++
		switch s[i] {
		case '\\':
			b.WriteByte('\\')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		default:
			return "", fmt.Errorf("%q: unknown escape \\%c", s, s[i])
		}
	}
	return b.String(), nil
}
