package validator

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/getkin/kin-openapi/openapi3filter"

	"github.com/inferd/inferd"
	"github.com/inferd/inferd/gen/api"
	"github.com/inferd/inferd/internal/httpapi/operation"
	"github.com/inferd/inferd/internal/jsonscan/jsonscantest"
)

// onePassBodies are predict bodies of every kind the validator meets: accepted ones,
// and every way of refusing one that today's tests and the contract fuzzer know.
var onePassBodies = []string{
	`{"model":"echo","data":1}`,
	`{"model":"echo","version":"v1","data":{"text":"hello","n":12345678901234567890}}`,
	`{"model":"echo","items":[1,"two",null]}`,
	`{"model":"echo","items":[1],"on_error":"continue"}`,
	`{"model":"echo","on_error":"fail","items":[1],"priority":"high","deadline":"2099-01-01T00:00:00Z","callback_url":"https://hooks.example.com/x"}`,
	`{"model":"echo","items":[1],"on_\u0065rror":"continue"}`,
	`{"model":"echo","items":[1],"on_error":"skip"}`,
	`{"model":"echo","items":[1],"on_error":1}`,
	`{"model":"echo","data":1,"on_error":"continue"}`,
	`{"model":"echo","items":[ ]}`,
	`{"model":"echo","items":[[1,[2]],{"a":"]"},"\"[",-0.5e-3]}`,
	`{"model":"echo","data":null,"items":null}`,
	` {"model" : "echo" , "data" : [ 1 , 2 ] } `,
	`{"model":"e\"cho","data":1}`,
	`{"model":"\u0065cho","data":1}`,
	`{"model":"echo","model":"other","data":1}`,
	`{"model":"","data":1}`,
	`{"model":"` + strings.Repeat("m", 129) + `","data":1}`,
	`{"model":"echo","version":"","data":1}`,
	`{"model":"echo","data":`,
	`[1,2]`,
	`null`,
	`"text"`,
	`12`,
	``,
	`   `,
	`{"model":"echo"}`,
	`{"data":1}`,
	`{"items":[1]}`,
	`{"model":7,"data":1}`,
	`{"model":"echo","version":2,"data":1}`,
	`{"model":"echo","data":1,"verison":"v1"}`,
	`{"model":"echo","data":1,"extra":{"deep":[1e400]}}`,
	`{"model":"echo","items":[]}`,
	`{"model":"echo","items":{}}`,
	`{"model":"echo","items":"x"}`,
	`{"model":"echo","data":1}{"model":"nope"}`,
	`{"model":"echo","items":[1]} x`,
	`{"model":"echo","data":1}]`,
	`{"model":7,"data":1} x`,
	`{"model":"echo","data":[1e400]}`,
	`{"model":"echo","items":[[1,-123456789012345678901234567890e300]]}`,
	`{"model":"echo","data":tru}`,
	`{"model":"echo","data":01}`,
	`{"model":"echo","data":"\x01"}`,
	`{"model":"echo","data":"` + "\xff" + `"}`,
	`{"model":"` + "\xff\xfe" + `","data":1}`,
	`{"model":"` + strings.Repeat("\u00e9", 128) + `","data":1}`,
	`{"model":"` + strings.Repeat("é", 129) + `","data":1}`,
	`{"model":"echo",,"data":1}`,
	// Members named twice: at the top (the first or the last refused by the schema),
	// through an escape, in data, in an item, before a syntax error, in a body that is
	// not UTF-8, and the same name in sibling objects (no duplicate).
	`{"model":5,"model":"echo","data":1}`,
	`{"model":"echo","model":5,"data":1}`,
	`{"model":"echo","\u006dodel":"x","data":1}`,
	`{"model":"echo","data":{"a":1,"b":{"c":[{"d":1,"d":2}]}}}`,
	`{"model":"echo","items":[{"x":1},{"x":1,"x":2}]}`,
	`{"model":"echo","data":{"a":1,"a":},"data":2}`,
	`{"model":"echo","data":{"` + "\xff" + `":1,"` + "\xfe" + `":2}}`,
	`{"model":"echo","data":[{"a":1},{"a":1}],"version":"v1"}`,
}

// TestOnePassMatchesValidator checks the one-pass decoder against the generic
// validator's path (decodeSlowly is that code) on every body of every predict
// operation: the same refusals word for word, and the same values handed on.
func TestOnePassMatchesValidator(t *testing.T) {
	routes := testOnePassRoutes(t)
	for path, op := range routes {
		for _, body := range onePassBodies {
			t.Run(path+" "+body, func(t *testing.T) { compareOnePass(t, op, body) })
		}
	}
}

// FuzzOnePassMatchesValidator is TestOnePassMatchesValidator on generated bodies
// (go test -fuzz FuzzOnePassMatchesValidator ./internal/httpapi/validator).
func FuzzOnePassMatchesValidator(f *testing.F) {
	for _, b := range onePassBodies {
		f.Add(b)
	}
	routes := testOnePassRoutes(f)
	f.Fuzz(func(t *testing.T, body string) {
		for _, op := range routes {
			compareOnePass(t, op, body)
		}
	})
}

func testOnePassRoutes(t testing.TB) map[string]*bodyRoute {
	t.Helper()
	spec, err := api.GetSpec()
	if err != nil {
		t.Fatal(err)
	}
	if err := inferd.NullableAnyValue(spec); err != nil {
		t.Fatal(err)
	}
	contract, err := inferd.Contract()
	if err != nil {
		t.Fatal(err)
	}
	ops, err := operation.Read(contract)
	if err != nil {
		t.Fatal(err)
	}
	routes, err := contractRoutes(spec, ops)
	if err != nil {
		t.Fatal(err)
	}
	onePass, err := onePassRoutes(spec, ops, routes)
	if err != nil {
		t.Fatal(err)
	}
	byPath := map[string]*bodyRoute{}
	for op, br := range onePass {
		byPath[op.Pattern] = br
	}
	return byPath
}

func compareOnePass(t *testing.T, op *bodyRoute, body string) {
	t.Helper()
	v := &Validator{cfg: Config{Authenticate: func(context.Context, *openapi3filter.AuthenticationInput) error { return nil }}}
	req := func() *http.Request {
		r := httptest.NewRequest(http.MethodPost, op.route.Path, strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		return r
	}
	ctx := context.Background()
	got, gotErr := v.decodeBody(ctx, req(), op, []byte(body))
	want, wantErr := v.decodeSlowly(ctx, req(), op, []byte(body))
	if (gotErr == nil) != (wantErr == nil) {
		t.Fatalf("one pass: %v; validator: %v", gotErr, wantErr)
	}
	// Both run jsonscan.Check, so the comparison above cannot tell whether a member
	// named twice is refused: encoding/json's tokenizer, which meets every name as it
	// decodes it, says whether the body (valid UTF-8 and JSON) has one.
	dup := gotErr != nil && strings.Contains(Describe(gotErr), "duplicate member")
	if b := []byte(body); utf8.Valid(b) && json.Valid(b) && namesTwice(t, b) != dup {
		t.Fatalf("one pass says %v of a body that names a member twice: %v", gotErr, !dup)
	}
	if gotErr != nil {
		if g, w := Describe(gotErr), Describe(wantErr); g != w {
			t.Fatalf("one pass says %q, the validator %q", g, w)
		}
		return
	}
	if got.Model != want.Model || got.Version != want.Version || got.OnError != want.OnError || !bytes.Equal(got.Data, want.Data) ||
		!slices.EqualFunc(got.Items, want.Items, func(a, b json.RawMessage) bool { return bytes.Equal(a, b) }) || (got.Items == nil) != (want.Items == nil) {
		t.Fatalf("one pass decoded %+v, the strict handler %+v", got, want)
	}
}

// namesTwice reports whether valid JSON text has an object that names a member twice,
// as encoding/json's tokenizer reads the names.
func namesTwice(t *testing.T, b []byte) bool {
	_, _, found, err := jsonscantest.Duplicate(b)
	if err != nil {
		t.Fatalf("Duplicate: %v", err)
	}
	return found
}
