package validator

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	middleware "github.com/oapi-codegen/nethttp-middleware"

	"github.com/inferd/inferd"
	"github.com/inferd/inferd/internal/httpapi/operation"
	"github.com/inferd/inferd/internal/jsonscan"
)

// Input is a predict body as the one-pass path hands it to the handlers (through
// Config.Decoded). Data and Items hold the request's own bytes, so numbers stay exact.
type Input struct {
	Model, Version string
	Data           json.RawMessage
	Items          []json.RawMessage
	// Priority and Deadline are the async submissions' members, as sent ("" when
	// absent).
	Priority, Deadline string
	// CallbackURL is a submission's callback_url; "" when it has none.
	CallbackURL string
	// OnError is a batch's on_error, as sent ("" when absent).
	OnError string
}

// securityScheme is one scheme of a security requirement, resolved at start.
type securityScheme struct {
	name   string
	scheme *openapi3.SecurityScheme
	scopes []string
}

// bodyRoute is what the one-pass path knows of an operation, read from the contract
// at start.
type bodyRoute struct {
	route    *routers.Route
	body     *openapi3.RequestBody
	schema   *openapi3.Schema
	security openapi3.SecurityRequirements
	schemes  [][]securityScheme
	// anyValue is the validator's AnyValue (nullable): it accepts every JSON value, so
	// a member it describes needs no decoding to be validated.
	anyValue *openapi3.Schema
	// fast decodes the common bodies in one scan (nil: every body takes decodeBody's
	// general path).
	fast *fastBody
	// keyOnly is set when one of the requirements is the API key alone, which the
	// gate checks before the body is read.
	keyOnly bool
}

// onePassRoutes reads the one-pass operations (the table's FastPath) from routes, the
// validator's copy of the contract (AnyValue already nullable).
func onePassRoutes(spec *openapi3.T, ops *operation.Table, routes map[*operation.Operation]*routers.Route) (map[*operation.Operation]*bodyRoute, error) {
	ref := spec.Components.Schemas[inferd.AnyValue]
	if ref == nil || ref.Value == nil {
		return nil, fmt.Errorf("the contract has no %s schema", inferd.AnyValue)
	}
	// The placeholders the one-pass path validates in place of raw members are nulls.
	if err := ref.Value.VisitJSON(nil); err != nil {
		return nil, fmt.Errorf("the validator's %s schema refuses null: %w", inferd.AnyValue, err)
	}
	out := map[*operation.Operation]*bodyRoute{}
	for _, o := range ops.All() {
		if !o.FastPath {
			continue
		}
		route := routes[o]
		op := route.Operation
		if op.RequestBody == nil || op.RequestBody.Value == nil {
			return nil, fmt.Errorf("%s has no request body", op.OperationID)
		}
		mt := op.RequestBody.Value.Content.Get("application/json")
		if mt == nil || mt.Schema == nil || mt.Schema.Value == nil {
			return nil, fmt.Errorf("%s has no application/json schema", op.OperationID)
		}
		br := &bodyRoute{
			route:    route,
			body:     op.RequestBody.Value,
			schema:   mt.Schema.Value,
			anyValue: ref.Value,
		}
		br.security = spec.Security
		if op.Security != nil {
			br.security = *op.Security
		}
		for _, req := range br.security {
			var schemes []securityScheme
			for name, scopes := range req {
				sch := spec.Components.SecuritySchemes[name]
				if sch == nil || sch.Value == nil {
					return nil, fmt.Errorf("%s: security scheme %q is not declared", op.OperationID, name)
				}
				schemes = append(schemes, securityScheme{name: name, scheme: sch.Value, scopes: scopes})
			}
			slices.SortFunc(schemes, func(a, b securityScheme) int { return strings.Compare(a.name, b.name) })
			br.schemes = append(br.schemes, schemes)
			br.keyOnly = br.keyOnly || len(schemes) == 1 && schemes[0].name == operation.APIKeyScheme
		}
		br.fast = newFastBody(br)
		out[o] = br
	}
	return out, nil
}

// bodyBufs recycles the buffers bodies are read into: nothing keeps a body's bytes
// after it is decoded (the raw members are copies).
var bodyBufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// decodeOnce is the validator for the one-pass operations. The gate has already
// answered from the headers, before any byte of the body was read: the key, its
// scope, its concurrency and its rate limit (401, 403, 429). Here the body is read
// (413 when it passes the limit), the contract's security requirements are met
// (checkSecurity, which a key the gate checked passes without its inputs), and the
// body is decoded once and validated against the contract's schema (400) before the
// handler runs.
func (v *Validator) decodeOnce(op *bodyRoute, next http.Handler, w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	fail := func(err error, status int) {
		matched := &middleware.ErrorHandlerOptsMatchedRoute{Route: op.route}
		v.cfg.Fail(ctx, err, w, r, middleware.ErrorHandlerOpts{StatusCode: status, MatchedRoute: matched})
	}
	buf := bodyBufs.Get().(*bytes.Buffer)
	buf.Reset()
	defer func() {
		if buf.Cap() <= 1<<20 { // a huge body's buffer is left to the collector
			bodyBufs.Put(buf)
		}
	}()
	if r.Body != nil && r.Body != http.NoBody {
		if r.ContentLength > 0 {
			buf.Grow(int(r.ContentLength))
		}
		if _, err := buf.ReadFrom(r.Body); err != nil {
			fail(bodyReadError(op.body, err), http.StatusBadRequest)
			return
		}
	}
	if err := v.checkSecurity(ctx, r, op); err != nil {
		fail(err, http.StatusUnauthorized)
		return
	}
	in, err := v.decodeBody(ctx, r, op, buf.Bytes())
	if err != nil {
		fail(err, http.StatusBadRequest)
		return
	}
	v.cfg.Decoded(ctx, in)
	next.ServeHTTP(w, r)
}

// checkSecurity is openapi3filter.ValidateSecurityRequirements over the schemes read
// at start, with the same AuthenticationFunc and the same error it returns.
func (v *Validator) checkSecurity(ctx context.Context, r *http.Request, op *bodyRoute) error {
	if len(op.schemes) == 0 {
		return nil
	}
	if op.keyOnly && v.cfg.Authed(ctx) {
		return nil // authenticate's answer for a key the gate checked, without its inputs
	}
	var errs []error
	in := &openapi3filter.RequestValidationInput{Request: r, Route: op.route}
	for _, schemes := range op.schemes {
		err := v.meetRequirement(ctx, in, schemes)
		if err == nil {
			return nil
		}
		errs = append(errs, err)
	}
	return &openapi3filter.SecurityRequirementsError{SecurityRequirements: op.security, Errors: errs}
}

func (v *Validator) meetRequirement(ctx context.Context, in *openapi3filter.RequestValidationInput, schemes []securityScheme) error {
	for _, sc := range schemes {
		if err := v.cfg.Authenticate(ctx, &openapi3filter.AuthenticationInput{
			RequestValidationInput: in, SecuritySchemeName: sc.name, SecurityScheme: sc.scheme, Scopes: sc.scopes,
		}); err != nil {
			return err
		}
	}
	return nil
}

// decodeBody decodes b once and validates it against the operation's schema. Members
// that the schema lets be any JSON value (data, the elements of items) stay raw bytes
// and are validated as the null placeholder, which the same schema accepts; the rest
// (model, version, unknown members) are decoded with UseNumber as kin-openapi would,
// so its schema errors, and so the 400 details, are the ones the generic validator
// gives. Anything off the common path (malformed JSON, data after the value, a body
// that is not an object) goes through the generic validator's own code, so every
// refusal reads as it did.
//
// The body is scanned once (jsonscan.Check) for its syntax and for a member named
// twice, at any depth, data and items included: readers disagree on which of two
// counts, so a proxy or firewall in front may have judged the other one.
func (v *Validator) decodeBody(ctx context.Context, r *http.Request, op *bodyRoute, b []byte) (*Input, error) {
	ct := r.Header.Get("Content-Type")
	if ct != "application/json" && op.body.Content.Get(ct) == nil {
		return v.decodeSlowly(ctx, r, op, b)
	}
	checked := jsonscan.Check(b)
	if checked == nil && op.fast != nil && ct == "application/json" {
		if in, ok := op.fast.decode(b); ok {
			return in, nil
		}
	}
	// The fast path takes valid UTF-8 only, so this scan costs only the other bodies.
	if err := notUTF8(op.body, b); err != nil {
		return nil, err
	}
	if err := duplicateMember(op.body, checked); err != nil {
		return nil, err
	}
	var members map[string]json.RawMessage
	if checked != nil || json.Unmarshal(b, &members) != nil || members == nil {
		return v.decodeSlowly(ctx, r, op, b)
	}
	values := make(map[string]any, len(members))
	in := &Input{}
	for name, raw := range members {
		var ps *openapi3.Schema
		if ref := op.schema.Properties[name]; ref != nil {
			ps = ref.Value
		}
		switch {
		case ps != nil && ps == op.anyValue:
			values[name] = nil
			if name == "data" {
				in.Data = raw
			}
			continue
		case ps != nil && ps.Items != nil && ps.Items.Value == op.anyValue:
			if elems, ok := jsonscan.Elements(raw); ok {
				values[name] = make([]any, len(elems))
				if name == "items" {
					in.Items = elems
				}
				continue
			}
		}
		val, err := decodeValue(raw)
		if err != nil {
			return v.decodeSlowly(ctx, r, op, b)
		}
		values[name] = val
	}
	if err := op.schema.VisitJSON(values, openapi3.VisitAsRequest()); err != nil {
		return nil, &openapi3filter.RequestError{RequestBody: op.body, Reason: "doesn't match schema", Err: err}
	}
	in.Model, _ = values["model"].(string)
	in.Version, _ = values["version"].(string)
	in.Priority, _ = values["priority"].(string)
	in.Deadline, _ = values["deadline"].(string)
	in.CallbackURL, _ = values["callback_url"].(string)
	in.OnError, _ = values["on_error"].(string)
	if n := jsonscan.HugeNumber(b); n != "" {
		return nil, tooHuge(op.body, n)
	}
	return in, nil
}

// decodeSlowly is the generic validator's path, for the bodies it refuses: the same
// code gives the same details. A body it accepts is decoded as the strict handler did.
func (v *Validator) decodeSlowly(ctx context.Context, r *http.Request, op *bodyRoute, b []byte) (*Input, error) {
	if err := notUTF8(op.body, b); err != nil {
		return nil, err
	}
	if op.body.Content.Get(r.Header.Get("Content-Type")) != nil {
		if err := duplicateMember(op.body, jsonscan.Check(b)); err != nil {
			return nil, err
		}
	}
	r.Body, r.GetBody = io.NopCloser(bytes.NewReader(b)), nil
	err := openapi3filter.ValidateRequestBody(ctx, &openapi3filter.RequestValidationInput{
		Request: r, Route: op.route, Options: &openapi3filter.Options{AuthenticationFunc: v.cfg.Authenticate},
	}, op.body)
	if err == nil {
		err = oneJSONValue(r, op.body)
	}
	if err != nil {
		return nil, err
	}
	var body struct {
		Model    string            `json:"model"`
		Version  string            `json:"version"`
		Data     json.RawMessage   `json:"data"`
		Items    []json.RawMessage `json:"items"`
		Priority string            `json:"priority"`
		Deadline string            `json:"deadline"`
		// A submission's; the other operations' schemas refuse it.
		CallbackURL string `json:"callback_url"`
		// A batch's; the single operations' schemas refuse it.
		OnError string `json:"on_error"`
	}
	if err := json.Unmarshal(b, &body); err != nil {
		return nil, &openapi3filter.RequestError{RequestBody: op.body, Reason: "can't decode JSON body", Err: err}
	}
	return &Input{Model: body.Model, Version: body.Version, Data: body.Data, Items: body.Items,
		Priority: body.Priority, Deadline: body.Deadline, CallbackURL: body.CallbackURL, OnError: body.OnError}, nil
}

// decodeValue decodes one member as kin-openapi's decoder would (UseNumber), with a
// shortcut for the plain ASCII strings that model and version hold (no escapes, and
// no bytes that decoding would replace as invalid UTF-8).
func decodeValue(raw json.RawMessage) (any, error) {
	if len(raw) >= 2 && raw[0] == '"' && jsonscan.Plain(raw[1:len(raw)-1]) {
		return string(raw[1 : len(raw)-1]), nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

func tooHuge(body *openapi3.RequestBody, n string) error {
	return &openapi3filter.RequestError{RequestBody: body, Reason: fmt.Sprintf(
		"the number %.40s is beyond the range of a double (about 1.8e308), which JSON readers cannot hold", n)}
}

// duplicateMember is the validator's error for a body that names a member twice (a
// *jsonscan.DuplicateError from checked), or nil.
func duplicateMember(body *openapi3.RequestBody, checked error) error {
	var dup *jsonscan.DuplicateError
	if !errors.As(checked, &dup) {
		return nil
	}
	return &openapi3filter.RequestError{RequestBody: body, Reason: "duplicate member",
		Err: fmt.Errorf("%w; send each member of an object once (readers disagree on which of two counts)", dup)}
}
