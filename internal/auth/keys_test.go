package auth_test

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/inferd/inferd/internal/auth"
)

func mustParse(tb testing.TB, text string) *auth.Keyring {
	tb.Helper()
	k, err := auth.Parse("API_KEYS_FILE keys", text)
	if err != nil {
		tb.Fatal(err)
	}
	return k
}

// id is the ID a key's principal carries.
func id(tb testing.TB, k *auth.Keyring, key string) string {
	tb.Helper()
	p, err := k.Authenticate(key)
	if err != nil {
		tb.Fatal(err)
	}
	return p.ID
}

func TestKeysReplace(t *testing.T) {
	old := mustParse(t, "old-key:predict\nops-key:admin")
	next := mustParse(t, "new-key:predict\nops-key:admin")
	ks := auth.NewKeys(old)
	if _, err := ks.Authorize("old-key", auth.ScopePredict); err != nil {
		t.Fatalf("before the swap: %v", err)
	}
	if prev := ks.Replace(next); prev != old {
		t.Errorf("Replace returned %p, want the old keyring %p", prev, old)
	}
	if ks.Current() != next {
		t.Error("Current is not the keyring put in force")
	}
	if _, err := ks.Authorize("old-key", auth.ScopePredict); !errors.Is(err, auth.ErrUnauthenticated) {
		t.Errorf("a removed key after the swap: %v, want ErrUnauthenticated", err)
	}
	if _, err := ks.Authorize("new-key", auth.ScopePredict); err != nil {
		t.Errorf("an added key after the swap: %v", err)
	}
	if _, err := ks.Authorize("new-key", auth.ScopeAdmin); !errors.Is(err, auth.ErrForbidden) {
		t.Errorf("scopes after the swap: %v, want ErrForbidden", err)
	}
}

// TestKeysReplaceUnderLoad swaps keyrings while goroutines authenticate (run it with
// -race): every answer comes from one whole keyring, so the key both hold is never
// refused and each other key is accepted only by the keyring that has it.
func TestKeysReplaceUnderLoad(t *testing.T) {
	a := mustParse(t, "a-key:predict\nboth-key:predict")
	b := mustParse(t, "b-key:predict\nboth-key:predict")
	ks := auth.NewKeys(a)
	var stop atomic.Bool
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for !stop.Load() {
				if _, err := ks.Authorize("both-key", auth.ScopePredict); err != nil {
					t.Errorf("the key both keyrings hold was refused: %v", err)
					return
				}
				k := ks.Current()
				_, errA := k.Authenticate("a-key")
				_, errB := k.Authenticate("b-key")
				if (errA == nil) == (errB == nil) {
					t.Errorf("one keyring accepted a-key (%v) and b-key (%v) alike", errA, errB)
					return
				}
			}
		})
	}
	for i := range 2000 {
		ks.Replace([]*auth.Keyring{a, b}[i%2])
	}
	stop.Store(true)
	wg.Wait()
}

func TestKeyringDiff(t *testing.T) {
	base := mustParse(t, "a-key:predict\nb-key:predict+read_models\nc-key:admin")
	tests := []struct {
		name                     string
		next                     string
		added, removed, rescoped []string // keys
	}{
		{"the same keys", "c-key:admin\na-key:predict\nb-key:read_models+predict", nil, nil, nil},
		{"one revoked", "a-key:predict\nc-key:admin", nil, []string{"b-key"}, nil},
		{"one added", "a-key:predict\nb-key:predict+read_models\nc-key:admin\nd-key:predict", []string{"d-key"}, nil, nil},
		{"one rotated", "a-key:predict\nb2-key:predict+read_models\nc-key:admin", []string{"b2-key"}, []string{"b-key"}, nil},
		{"scopes changed", "a-key:predict+admin\nb-key:predict+read_models\nc-key:admin", nil, nil, []string{"a-key"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			next := mustParse(t, tt.next)
			c := base.Diff(next)
			ids := func(k *auth.Keyring, keys []string) []string {
				var out []string
				for _, key := range keys {
					out = append(out, id(t, k, key))
				}
				return out
			}
			for _, check := range []struct {
				what      string
				got, want []string
			}{
				{"added", c.Added, ids(next, tt.added)},
				{"removed", c.Removed, ids(base, tt.removed)},
				{"rescoped", c.Rescoped, ids(next, tt.rescoped)},
			} {
				if !slices.Equal(check.got, check.want) {
					t.Errorf("%s = %v, want %v", check.what, check.got, check.want)
				}
			}
			if c.Empty() != (len(tt.added)+len(tt.removed)+len(tt.rescoped) == 0) {
				t.Errorf("Empty() = %v for %+v", c.Empty(), c)
			}
		})
	}
}

// BenchmarkAuthorize compares a fixed keyring with Keys, which adds an atomic load to
// every request's authentication (go test -run '^$' -bench Authorize ./internal/auth).
func BenchmarkAuthorize(b *testing.B) {
	text := ""
	for i := range 8 {
		text += fmt.Sprintf("key-%d:predict+read_models\n", i)
	}
	k := mustParse(b, text)
	for _, bc := range []struct {
		name string
		auth func(string, auth.Scope) (auth.Principal, error)
	}{
		{"Keyring", k.Authorize},
		{"Keys", auth.NewKeys(k).Authorize},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := bc.auth("key-7", auth.ScopePredict); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
