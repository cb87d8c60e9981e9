package auth_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/inferd/inferd/internal/auth"
)

func TestParseAcceptsGoodEntries(t *testing.T) {
	all := []auth.Scope{auth.ScopePredict, auth.ScopeReadModels, auth.ScopeAdmin}
	tests := []struct {
		name string
		text string
		want map[string][]auth.Scope // key -> scopes in the order given
	}{
		{"one entry", "k3y1:predict", map[string][]auth.Scope{"k3y1": {auth.ScopePredict}}},
		{
			"the documented example",
			"k3y1:predict+read_models,0pskey:predict+read_models+admin",
			map[string][]auth.Scope{"k3y1": {auth.ScopePredict, auth.ScopeReadModels}, "0pskey": all},
		},
		{
			"newlines, comments and blank lines",
			"# inferd keys\n\nk3y1:predict\n  # indented comment\nops-key:admin\n\n",
			map[string][]auth.Scope{"k3y1": {auth.ScopePredict}, "ops-key": {auth.ScopeAdmin}},
		},
		{
			"CRLF line ends",
			"k3y1:predict\r\nk3y2:read_models\r\n",
			map[string][]auth.Scope{"k3y1": {auth.ScopePredict}, "k3y2": {auth.ScopeReadModels}},
		},
		{
			"commas and newlines mixed",
			"a-key:predict, b-key:read_models\nc-key:admin",
			map[string][]auth.Scope{"a-key": {auth.ScopePredict}, "b-key": {auth.ScopeReadModels}, "c-key": {auth.ScopeAdmin}},
		},
		{
			"white space around entries and scopes",
			"  k3y1:predict + admin ,\tk3y2:read_models  ",
			map[string][]auth.Scope{"k3y1": {auth.ScopePredict, auth.ScopeAdmin}, "k3y2": {auth.ScopeReadModels}},
		},
		{
			"duplicate scopes collapse",
			"k3y1:predict+admin+predict+admin",
			map[string][]auth.Scope{"k3y1": {auth.ScopePredict, auth.ScopeAdmin}},
		},
		{
			"keys with punctuation",
			"Zm9v+YmFy/baz=:predict",
			map[string][]auth.Scope{"Zm9v+YmFy/baz=": {auth.ScopePredict}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k, err := auth.Parse("API_KEYS", tt.text)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if k.Len() != len(tt.want) {
				t.Errorf("Len = %d, want %d", k.Len(), len(tt.want))
			}
			if k.IsDev() {
				t.Error("a parsed keyring claims to be the development keys")
			}
			for key, scopes := range tt.want {
				p, err := k.Authenticate(key)
				if err != nil {
					t.Fatalf("Authenticate(%q): %v", key, err)
				}
				if !slices.Equal(p.Scopes, scopes) {
					t.Errorf("scopes of %q = %v, want %v", key, p.Scopes, scopes)
				}
				for _, s := range all {
					if p.Has(s) != slices.Contains(scopes, s) {
						t.Errorf("%q Has(%s) = %v", key, s, p.Has(s))
					}
				}
			}
		})
	}
}

func TestParseRejectsMalformedEntries(t *testing.T) {
	tests := []struct {
		name    string
		text    string
		key     string // the secret that must not appear in the error; "" when the entry has none
		wantPos string
		wantMsg string
	}{
		{"missing colon", "good-key:predict,s3cr3t-one", "s3cr3t-one", "entry 2", "missing ':'"},
		{"missing colon, scopes joined by +", "s3cr3t-one+predict", "s3cr3t-one", "entry 1", "missing ':'"},
		{"empty key", "good-key:predict,:admin", "", "entry 2", "empty key"},
		{"no scopes", "good-key:predict\ns3cr3t-one:", "s3cr3t-one", "entry 2", "no scopes"},
		{"empty scope between pluses", "s3cr3t-one:predict++admin", "s3cr3t-one", "entry 1", "unknown scope"},
		{"unknown scope", "good-key:predict,s3cr3t-one:predict+superuser", "s3cr3t-one", "entry 2", "scope 2 after ':'"},
		{"scope first, key second", "predict:s3cr3t-one", "s3cr3t-one", "entry 1", "unknown scope"},
		{"scope in the wrong case", "s3cr3t-one:Predict", "s3cr3t-one", "entry 1", "unknown scope"},
		{"empty entry", "good-key:predict,,other-key:admin", "", "entry 2", "empty entry"},
		{"trailing comma", "s3cr3t-one:predict,", "", "entry 2", "empty entry"},
		{"duplicate key", "s3cr3t-one:predict,other-key:admin,s3cr3t-one:admin", "s3cr3t-one", "entry 3", "twice"},
		{"key with a space", "good-key:predict,s3cr3t one:predict", "s3cr3t one", "entry 2", "white space"},
		{"key with a tab", "s3cr3t\tone:predict", "s3cr3t\tone", "entry 1", "white space"},
		{"position counts entries, not lines", "# keys\n\na-key:predict,b-key:admin\nc-key:read_models\ns3cr3t-one:root", "s3cr3t-one", "entry 4", "unknown scope"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k, err := auth.Parse("API_KEYS", tt.text)
			if err == nil {
				t.Fatalf("Parse accepted %q (%d keys)", tt.text, k.Len())
			}
			msg := err.Error()
			if !errors.Is(err, auth.ErrMalformed) {
				t.Errorf("error %q does not wrap ErrMalformed", msg)
			}
			if !strings.Contains(msg, "API_KEYS "+tt.wantPos+":") {
				t.Errorf("error %q does not name %q", msg, "API_KEYS "+tt.wantPos)
			}
			if !strings.Contains(msg, tt.wantMsg) {
				t.Errorf("error %q does not say %q", msg, tt.wantMsg)
			}
			for _, secret := range []string{tt.key, "good-key", "other-key", "a-key", "b-key", "c-key"} {
				if secret != "" && strings.Contains(msg, secret) {
					t.Errorf("error %q reveals the key %q", msg, secret)
				}
			}
		})
	}
}

func TestParseNoKeys(t *testing.T) {
	for _, text := range []string{"", "   ", "\n\n", "# only a comment\n# and another"} {
		t.Run(text, func(t *testing.T) {
			if _, err := auth.Parse("API_KEYS_FILE /run/secrets/keys", text); !errors.Is(err, auth.ErrMalformed) || !strings.Contains(err.Error(), "/run/secrets/keys") {
				t.Errorf("Parse(%q) = %v, want ErrMalformed naming the source", text, err)
			}
		})
	}
}

func TestAuthorize(t *testing.T) {
	k, err := auth.Parse("API_KEYS", "p-key:predict,r-key:read_models,a-key:admin,all-key:predict+read_models+admin")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		key   string
		scope auth.Scope
		want  error
	}{
		{"no key", "", auth.ScopePredict, auth.ErrUnauthenticated},
		{"no key for any valid key", "", "", auth.ErrUnauthenticated},
		{"unknown key", "nope", auth.ScopePredict, auth.ErrUnauthenticated},
		{"unknown key for any valid key", "nope", "", auth.ErrUnauthenticated},
		{"prefix of a key", "p-ke", auth.ScopePredict, auth.ErrUnauthenticated},
		{"key with a trailing space", "p-key ", auth.ScopePredict, auth.ErrUnauthenticated},
		{"key in another case", "P-KEY", auth.ScopePredict, auth.ErrUnauthenticated},
		{"predict key, predict scope", "p-key", auth.ScopePredict, nil},
		{"predict key, read scope", "p-key", auth.ScopeReadModels, auth.ErrForbidden},
		{"predict key, admin scope", "p-key", auth.ScopeAdmin, auth.ErrForbidden},
		{"read key, read scope", "r-key", auth.ScopeReadModels, nil},
		{"read key, predict scope", "r-key", auth.ScopePredict, auth.ErrForbidden},
		{"admin-only key, predict scope", "a-key", auth.ScopePredict, auth.ErrForbidden},
		{"admin-only key, admin scope", "a-key", auth.ScopeAdmin, nil},
		{"all scopes, admin scope", "all-key", auth.ScopeAdmin, nil},
		{"predict key, any valid key", "p-key", "", nil},
		{"read key, any valid key", "r-key", "", nil},
		{"admin key, any valid key", "a-key", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := k.Authorize(tt.key, tt.scope)
			if !errors.Is(err, tt.want) || (tt.want == nil) != (err == nil) {
				t.Fatalf("Authorize = %v, want %v", err, tt.want)
			}
			if err != nil && tt.key != "" && strings.Contains(err.Error(), tt.key) {
				t.Errorf("error %q reveals the key", err)
			}
			if tt.want == nil && (p.ID == "" || p.ID == tt.key) {
				t.Errorf("principal ID %q", p.ID)
			}
		})
	}
}

func TestDevKeyring(t *testing.T) {
	k := auth.DevKeyring()
	if !k.IsDev() || k.Len() != 2 {
		t.Fatalf("IsDev %v, Len %d", k.IsDev(), k.Len())
	}
	tests := []struct {
		key   string
		scope auth.Scope
		want  error
	}{
		{auth.DevKey, auth.ScopePredict, nil},
		{auth.DevKey, auth.ScopeReadModels, nil},
		{auth.DevKey, auth.ScopeAdmin, auth.ErrForbidden},
		{auth.DevKey, "", nil},
		{auth.AdminKey, auth.ScopePredict, nil},
		{auth.AdminKey, auth.ScopeReadModels, nil},
		{auth.AdminKey, auth.ScopeAdmin, nil},
		{auth.AdminKey, "", nil},
		{"dev-key2", "", auth.ErrUnauthenticated},
	}
	for _, tt := range tests {
		t.Run(tt.key+"/"+string(tt.scope), func(t *testing.T) {
			if _, err := k.Authorize(tt.key, tt.scope); !errors.Is(err, tt.want) || (tt.want == nil) != (err == nil) {
				t.Errorf("Authorize = %v, want %v", err, tt.want)
			}
		})
	}
	if auth.DevKey != "dev-key" || auth.AdminKey != "admin-key" {
		t.Errorf("development keys are %q and %q; the docs fix dev-key and admin-key (docs/design.md#keys-and-scopes)", auth.DevKey, auth.AdminKey)
	}
}

func TestPrincipalID(t *testing.T) {
	keys := []string{"k3y1", "0pskey", "dev-key", "a"}
	k, err := auth.Parse("API_KEYS", strings.Join(keys, ":predict,")+":predict")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{}
	for _, key := range keys {
		t.Run(key, func(t *testing.T) {
			p, err := k.Authenticate(key)
			if err != nil {
				t.Fatal(err)
			}
			if p.ID == "" || p.ID == key {
				t.Errorf("ID = %q for key %q", p.ID, key)
			}
			again, _ := k.Authenticate(key)
			if again.ID != p.ID {
				t.Errorf("ID not stable: %q then %q", p.ID, again.ID)
			}
			if other, dup := seen[p.ID]; dup {
				t.Errorf("keys %q and %q share the ID %q", other, key, p.ID)
			}
			seen[p.ID] = key
		})
	}
}
