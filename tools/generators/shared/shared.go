// Package shared holds what the Go programs of make check-generators share: the server
// they talk to, the values they send, and how they check what comes back.
package shared

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
)

// Data is the `data` each program predicts with: an integer beyond a double's 53 bits
// (json.RawMessage and jx.Raw carry it exactly), and nested nulls.
const Data = `{"text":"hello","n":12345678901234567890,"nested":[null,1.5,true,{"a":null}]}`

// JobData is the `data` of the job each program submits.
const JobData = `[1,"two",null]`

// BatchItems are the items of the batch each program sends with on_error continue; the
// echo model answers every one.
var BatchItems = []string{`1`, `"two"`, `null`}

// Continued is an answer of /predict/batch sent with on_error continue whose second item
// was refused (the contract's example), which each program decodes with its generated
// types: the programs' server, echo alone, refuses no item.
const Continued = `{"model":"iris","version":"v1","results":[[{"label":"setosa","score":0.9816}],null],` +
	`"item_errors":[{"index":1,"status":400,"code":"invalid_input","detail":"items[1]: expected 4 numbers, got 3"}]}`

// ItemError fails unless an item error decoded from Continued reads as it was written.
func ItemError(index, status int, code, detail string) {
	if index != 1 || status != 400 || code != "invalid_input" || detail != "items[1]: expected 4 numbers, got 3" {
		Fail("the item error of %s reads as %d %d %q %q", Continued, index, status, code, detail)
	}
}

// NoSuchModel is a model no server has: predicting with it is a 400 model_not_found.
const NoSuchModel = "no-such-model"

// Target returns the server's address and API key: INFERD_URL (required) and
// INFERD_API_KEY (default dev-key, the development key).
func Target() (url, key string) {
	url = os.Getenv("INFERD_URL")
	if url == "" {
		Fail("INFERD_URL is not set: it names the inferd to call")
	}
	key = os.Getenv("INFERD_API_KEY")
	if key == "" {
		key = "dev-key"
	}
	return url, key
}

// Check fails on an error.
func Check(err error) {
	if err != nil {
		Fail("%v", err)
	}
}

// Fail prints what went wrong and exits 1.
func Fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%s: %s\n", os.Args[0], fmt.Sprintf(format, args...))
	os.Exit(1)
}

// SameJSON fails unless got is the JSON value want, numbers compared digit for digit.
func SameJSON(what string, got []byte, want string) {
	if !reflect.DeepEqual(decode(what, got), decode(what, []byte(want))) {
		Fail("%s is %s, want %s", what, got, want)
	}
}

func decode(what string, b []byte) any {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		Fail("%s: %v in %q", what, err, b)
	}
	return v
}

// Code fails unless a problem's code is the one predicting with NoSuchModel gets.
func Code(code string) {
	if code != "model_not_found" {
		Fail("the problem's code is %q, want model_not_found", code)
	}
}
