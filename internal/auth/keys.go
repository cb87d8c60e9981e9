package auth

import (
	"slices"
	"sync/atomic"
)

// Keys is the keyring in force, which a reload of API_KEYS_FILE replaces while
// requests are being authenticated. Readers take the current keyring with one atomic
// load and no lock, so authenticating costs what it did with a fixed keyring, and a
// request sees one whole keyring, the old or the new, never a mix.
type Keys struct {
	cur atomic.Pointer[Keyring]
}

// NewKeys returns Keys holding k.
func NewKeys(k *Keyring) *Keys {
	ks := &Keys{}
	ks.cur.Store(k)
	return ks
}

// Current returns the keyring in force.
func (ks *Keys) Current() *Keyring { return ks.cur.Load() }

// Replace puts k in force for every request authenticated from now on, and returns
// the keyring it replaced.
func (ks *Keys) Replace(k *Keyring) *Keyring { return ks.cur.Swap(k) }

// Authorize is Keyring.Authorize on the keyring in force.
func (ks *Keys) Authorize(key string, scope Scope) (Principal, error) {
	return ks.cur.Load().Authorize(key, scope)
}

// Change is what a new keyring changes from an old one, by the keys' IDs (safe to log).
type Change struct {
	Added, Removed []string
	// Rescoped are keys in both whose scopes differ.
	Rescoped []string
}

// Empty reports whether the two keyrings accept the same keys with the same scopes.
func (c Change) Empty() bool { return len(c.Added)+len(c.Removed)+len(c.Rescoped) == 0 }

// Diff returns what next changes from k.
func (k *Keyring) Diff(next *Keyring) Change {
	var c Change
	for _, e := range next.entries {
		if old := k.find(e.sum); old == nil {
			c.Added = append(c.Added, e.id)
		} else if !sameScopes(old.scopes, e.scopes) {
			c.Rescoped = append(c.Rescoped, e.id)
		}
	}
	for _, e := range k.entries {
		if next.find(e.sum) == nil {
			c.Removed = append(c.Removed, e.id)
		}
	}
	return c
}

// find is for Diff only: it stops at the first match, which Authenticate must not.
func (k *Keyring) find(sum [32]byte) *entry {
	for i := range k.entries {
		if k.entries[i].sum == sum {
			return &k.entries[i]
		}
	}
	return nil
}

func sameScopes(a, b []Scope) bool {
	if len(a) != len(b) {
		return false
	}
	for _, s := range a {
		if !slices.Contains(b, s) {
			return false
		}
	}
	return true
}
