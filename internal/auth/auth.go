package auth

import (
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Scope is a permission a key holds.
type Scope string

// The scopes a key may hold (see docs/design.md#keys-and-scopes).
const (
	ScopePredict    Scope = "predict"
	ScopeReadModels Scope = "read_models"
	ScopeAdmin      Scope = "admin"
)

var knownScopes = []Scope{ScopePredict, ScopeReadModels, ScopeAdmin}

// Sentinel errors of authentication.
var (
	// ErrUnauthenticated: the key is missing or unknown (401).
	ErrUnauthenticated = errors.New("unauthenticated")
	// ErrForbidden: the key is valid but lacks the scope (403).
	ErrForbidden = errors.New("forbidden")
	// ErrMalformed: API_KEYS or API_KEYS_FILE holds an entry that cannot be parsed.
	ErrMalformed = errors.New("malformed API key entry")
)

// The development keys, active when no keys are configured. Never for production.
const (
	DevKey   = "dev-key"
	AdminKey = "admin-key"
)

// Principal is an authenticated key. It never holds the key itself, so it is safe to
// log.
type Principal struct {
	// ID identifies the key in logs and rate limits without revealing it: the first
	// hex digits of its SHA-256.
	ID     string
	Scopes []Scope
}

// Has reports whether the principal holds scope.
func (p Principal) Has(scope Scope) bool { return slices.Contains(p.Scopes, scope) }

type entry struct {
	sum    [sha256.Size]byte
	id     string // the Principal's ID, made once rather than on every request
	scopes []Scope
}

// Keyring is the set of valid keys. It is immutable and safe for concurrent use.
type Keyring struct {
	entries []entry
	dev     bool
}

// DevKeyring returns the built-in development keys.
func DevKeyring() *Keyring {
	k := &Keyring{dev: true}
	k.add(DevKey, []Scope{ScopePredict, ScopeReadModels})
	k.add(AdminKey, []Scope{ScopePredict, ScopeReadModels, ScopeAdmin})
	return k
}

// IsDev reports whether these are the built-in development keys.
func (k *Keyring) IsDev() bool { return k.dev }

// Len returns the number of keys.
func (k *Keyring) Len() int { return len(k.entries) }

func (k *Keyring) add(key string, scopes []Scope) {
	sum := sha256.Sum256([]byte(key))
	k.entries = append(k.entries, entry{sum: sum, id: fmt.Sprintf("%x", sum[:6]), scopes: scopes})
}

// Parse reads entries of the form KEY:SCOPE+SCOPE separated by commas or newlines;
// blank lines and lines starting with # are skipped. source names where the text came
// from in errors ("API_KEYS", a file name). Errors give the entry's position and
// never the key.
func Parse(source, text string) (*Keyring, error) {
	k := &Keyring{}
	seen := map[[sha256.Size]byte]bool{}
	pos := 0
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		for _, e := range strings.Split(line, ",") {
			pos++
			e = strings.TrimSpace(e)
			key, scopes, err := parseEntry(e)
			if err != nil {
				return nil, fmt.Errorf("%w: %s entry %d: %v", ErrMalformed, source, pos, err)
			}
			sum := sha256.Sum256([]byte(key))
			if seen[sum] {
				return nil, fmt.Errorf("%w: %s entry %d: the same key appears twice", ErrMalformed, source, pos)
			}
			seen[sum] = true
			k.add(key, scopes)
		}
	}
	if len(k.entries) == 0 {
		return nil, fmt.Errorf("%w: %s holds no keys", ErrMalformed, source)
	}
	return k, nil
}

func parseEntry(e string) (string, []Scope, error) {
	if e == "" {
		return "", nil, errors.New("empty entry (two commas in a row?)")
	}
	key, list, ok := strings.Cut(e, ":")
	if !ok {
		return "", nil, errors.New("missing ':' between the key and its scopes (want KEY:SCOPE+SCOPE)")
	}
	if key == "" {
		return "", nil, errors.New("empty key")
	}
	if strings.ContainsAny(key, " \t") {
		return "", nil, errors.New("the key contains white space")
	}
	if list == "" {
		return "", nil, errors.New("no scopes after ':' (want one or more of predict, read_models, admin joined by '+')")
	}
	var scopes []Scope
	for i, s := range strings.Split(list, "+") {
		sc := Scope(strings.TrimSpace(s))
		if !slices.Contains(knownScopes, sc) {
			// The scope's text is not repeated: an entry written the wrong way round
			// (scope:key) would put the key in the log.
			return "", nil, fmt.Errorf("unknown scope (scope %d after ':' is not predict, read_models or admin)", i+1)
		}
		if !slices.Contains(scopes, sc) {
			scopes = append(scopes, sc)
		}
	}
	return key, scopes, nil
}

// Authenticate returns the principal of key, or ErrUnauthenticated. It compares the
// key's digest with every known digest in constant time and never stops early, so the
// time taken says nothing about which keys exist.
func (k *Keyring) Authenticate(key string) (Principal, error) {
	if key == "" {
		return Principal{}, fmt.Errorf("%w: no X-API-Key header", ErrUnauthenticated)
	}
	sum := sha256.Sum256([]byte(key))
	match := -1
	for i := range k.entries {
		if subtle.ConstantTimeCompare(sum[:], k.entries[i].sum[:]) == 1 {
			match = i
		}
	}
	if match < 0 {
		return Principal{}, fmt.Errorf("%w: unknown API key", ErrUnauthenticated)
	}
	return Principal{ID: k.entries[match].id, Scopes: k.entries[match].scopes}, nil
}

// Authorize authenticates key and checks it holds scope; an empty scope accepts any
// valid key.
func (k *Keyring) Authorize(key string, scope Scope) (Principal, error) {
	p, err := k.Authenticate(key)
	if err != nil {
		return Principal{}, err
	}
	if scope != "" && !p.Has(scope) {
		return p, fmt.Errorf("%w: this operation needs the %s scope", ErrForbidden, scope)
	}
	return p, nil
}
