package auth_test

import (
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/inferd/inferd/internal/auth"
)

// parseError is every message Parse may return for API_KEYS. Each part after the
// entry's position is a fixed text, so a match also shows that no error repeats a key
// (or anything else of the entry) into the log.
var parseError = regexp.MustCompile(`^malformed API key entry: API_KEYS (holds no keys|entry [1-9][0-9]*: (` +
	`empty entry \(two commas in a row\?\)|` +
	`missing ':' between the key and its scopes \(want KEY:SCOPE\+SCOPE\)|` +
	`empty key|` +
	`the key contains white space|` +
	`no scopes after ':' \(want one or more of predict, read_models, admin joined by '\+'\)|` +
	`unknown scope \(scope [1-9][0-9]* after ':' is not predict, read_models or admin\)|` +
	`the same key appears twice))$`)

// FuzzParse: Parse of any API_KEYS text either fails with ErrMalformed and a message
// that names a position but no key, or returns a keyring in which every entry's key
// authenticates with exactly the scopes written after it.
// (go test -run '^$' -fuzz '^FuzzParse$' ./internal/auth)
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"k3y1:predict",
		"k3y1:predict+read_models,0pskey:predict+read_models+admin",
		"# inferd keys\n\nk3y1:predict\n  # indented comment\nops-key:admin\n\n",
		"k:predict,,j:admin",
		"predict:k3y1",
		"k 1:predict",
		"k:",
		":admin",
		"k:admin+admin+ predict ",
		"k:a,k:admin",
		"",
		"#only:admin",
		"k:predict\r\nj:admin",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		k, err := auth.Parse("API_KEYS", text)
		if err != nil {
			if !errors.Is(err, auth.ErrMalformed) {
				t.Fatalf("error %v is not ErrMalformed", err)
			}
			if !parseError.MatchString(err.Error()) {
				t.Fatalf("unexpected error text (it may leak a key): %q", err.Error())
			}
			return
		}
		entries := 0
		for _, line := range strings.Split(text, "\n") {
			line = strings.TrimSpace(line)
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			for _, e := range strings.Split(line, ",") {
				entries++
				key, list, _ := strings.Cut(strings.TrimSpace(e), ":")
				p, err := k.Authenticate(key)
				if err != nil {
					t.Fatalf("entry %d: its key does not authenticate: %v", entries, err)
				}
				want := map[auth.Scope]bool{}
				for _, s := range strings.Split(list, "+") {
					want[auth.Scope(strings.TrimSpace(s))] = true
				}
				for _, s := range []auth.Scope{auth.ScopePredict, auth.ScopeReadModels, auth.ScopeAdmin} {
					if p.Has(s) != want[s] {
						t.Fatalf("entry %d: Has(%s) = %v, the entry says %v", entries, s, p.Has(s), want[s])
					}
				}
				if len(p.Scopes) != len(want) {
					t.Fatalf("entry %d: scopes %v, want %d distinct", entries, p.Scopes, len(want))
				}
			}
		}
		if k.Len() != entries || k.IsDev() {
			t.Fatalf("Len() = %d, IsDev() = %v for %d entries", k.Len(), k.IsDev(), entries)
		}
	})
}
