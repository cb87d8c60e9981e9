package e2etest

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/inferd/inferd/client"
	"github.com/inferd/inferd/internal/testkit"
)

// wantProblem checks that err is the *client.Error the server's problem makes: status,
// code, a detail a person can act on and the request id.
func wantProblem(t *testing.T, err error, status int, code string) *client.Error {
	t.Helper()
	var e *client.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T), want a *client.Error %d %s", err, err, status, code)
	}
	if e.Status != status || e.Code != code {
		t.Fatalf("%d %s (%v), want %d %s", e.Status, e.Code, e, status, code)
	}
	if !client.IsCode(err, code) || client.IsCode(err, code+"_not") {
		t.Errorf("IsCode does not tell %s from other codes", code)
	}
	if e.Title == "" || e.Detail == "" || e.RequestID == "" || e.Type == "" {
		t.Errorf("the problem lacks a title, detail, request id or type: %+v", e)
	}
	if msg := e.Error(); !strings.Contains(msg, code) || !strings.Contains(msg, e.RequestID) || !strings.Contains(msg, e.Detail) {
		t.Errorf("the message %q lacks the code, detail or request id", msg)
	}
	return e
}

// sameJSON checks that got holds the JSON value want writes, numbers digit for digit.
func sameJSON(t *testing.T, got json.RawMessage, want string) {
	t.Helper()
	if !testkit.SameJSON(got, []byte(want)) {
		t.Errorf("got %s, want %s", got, want)
	}
}

func contains(s, part string) bool { return strings.Contains(s, part) }
