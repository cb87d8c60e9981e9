package validator

import (
	"strings"
	"testing"
)

// fastBodies are bodies the fast path must take (the common ones) and answer as the
// validator does; each is decoded twice, so the second answer comes from the
// remembered shape.
var fastBodies = []string{
	`{"model":"echo","data":1}`,
	`{"model":"echo","version":"v1","data":{"text":"hello","n":12345678901234567890}}`,
	`{"version":"v2","data":[1.5e3,-2,"]",{"a":"\"}"}],"model":"iris"}`,
	`{"model":"echo","items":[1,"two",null,true,false,{"k":[{}]},[[]]]}`,
	` { "model" : "echo" , "items" : [ 1 , [ 2 , 3 ] , "x,y" ] } `,
	"{\n\t\"model\": \"echo\",\n\t\"data\": \"caf\u00e9\"\n}",
	`{"model":"echo","data":1e308}`,
	`{"model":"echo","items":[-0.0,0e0,1E+2]}`,
	`{"model":"echo","on_error":"continue","items":[1]}`,
}

// slowBodies must not take the fast path: the general path words their refusal, or
// spells what the fast path does not decode.
var slowBodies = []string{
	`{"model":"echo","data":{"x":1e309}}`,
	`{"model":"echo","items":[1,[2,-1e999]]}`,
	`{"model":"ech\u006f","data":1}`,
	`{"mod\u0065l":"echo","data":1}`,
	`{"model":"echo","model":"echo","data":1}`,
	`{"model":"echo","items":[]}`,
	`{"model":"echo","data":1,"x":2}`,
	`{"model":"` + strings.Repeat("m", 129) + `","data":1}`,
	`{"model":"echo","data":"` + "\xff" + `"}`,
	`{"model":"echo","data":1} `[:20],
}

func TestFastBody(t *testing.T) {
	for path, op := range testOnePassRoutes(t) {
		if op.fast == nil {
			t.Fatalf("%s has no fast path", path)
		}
		batch := strings.Contains(path, "batch")
		for _, body := range fastBodies {
			t.Run(path+" "+body, func(t *testing.T) {
				for range 2 {
					compareOnePass(t, op, body)
				}
				_, ok := op.fast.decode([]byte(body))
				if wantOK := batch == strings.Contains(body, `"items"`); ok != wantOK {
					t.Errorf("fast path taken: %v, want %v", ok, wantOK)
				}
			})
		}
		for _, body := range slowBodies {
			t.Run(path+" "+body, func(t *testing.T) {
				compareOnePass(t, op, body)
				if _, ok := op.fast.decode([]byte(body)); ok {
					t.Error("the fast path took it")
				}
			})
		}
	}
}

// TestFastBodyOwnsItsBytes: the body is read into a buffer that the next request
// reuses, and a job keeps its input long after: the decoded members must not share
// the buffer's bytes.
func TestFastBodyOwnsItsBytes(t *testing.T) {
	routes := testOnePassRoutes(t)
	for _, tt := range []struct{ path, body string }{
		{"/predict/async", `{"model":"echo","data":{"a":[1,2]}}`},
		{"/predict/async/batch", `{"model":"echo","items":[{"a":1},[2]]}`},
	} {
		b := []byte(tt.body)
		in, ok := routes[tt.path].fast.decode(b)
		if !ok {
			t.Fatalf("%s: the fast path refused %s", tt.path, tt.body)
		}
		for i := range b {
			b[i] = 'x'
		}
		got := string(in.Data)
		for _, it := range in.Items {
			got += string(it)
		}
		if strings.Contains(got, "x") {
			t.Errorf("%s: the decoded members changed with the buffer: %s", tt.path, got)
		}
	}
}
