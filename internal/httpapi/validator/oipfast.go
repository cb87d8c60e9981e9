package validator

import (
	"net/http"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/routers"

	"github.com/inferd/inferd/internal/httpapi/operation"
)

// oipPlain is what the infer operations' validator needs to tell, without
// kin-openapi, that a request's parameters and key pass: kin-openapi's
// ValidateRequest costs an iris call through /v2 a few microseconds, as much as its
// tensor's decoding. A request it cannot tell so of is validated by kin-openapi, whose
// answer stands.
type oipPlain struct {
	// keyOnly: one of the security requirements is the API key alone, which the gate
	// has checked when Config.Authed says so.
	keyOnly bool
	// paths are the path parameters, strings of at least one character and at most
	// maxLength; header is the one header parameter, a whole number of at least 0, or
	// "" for none.
	paths  []pathParam
	header string
	// absent are the optional headers of other kinds (Request-Timeout): a request
	// that sends one is left to kin-openapi.
	absent []string
}

type pathParam struct {
	name string
	max  int
}

// newOIPPlain reads the plain case of an infer operation from the contract; ok is
// false when it declares a parameter the plain case does not know, which then always
// takes kin-openapi.
func newOIPPlain(spec *openapi3.T, route *routers.Route) (p oipPlain, ok bool) {
	security := spec.Security
	if route.Operation.Security != nil {
		security = *route.Operation.Security
	}
	for _, req := range security {
		_, key := req[operation.APIKeyScheme]
		p.keyOnly = p.keyOnly || len(req) == 1 && key
	}
	params := append(append(openapi3.Parameters{}, route.PathItem.Parameters...), route.Operation.Parameters...)
	for _, ref := range params {
		if ref == nil || ref.Value == nil || ref.Value.Schema == nil || ref.Value.Schema.Value == nil {
			return p, false
		}
		prm, s := ref.Value, ref.Value.Schema.Value
		switch {
		case prm.In == openapi3.ParameterInPath && s.Type.Is(openapi3.TypeString) && s.MinLength <= 1 && s.MaxLength != nil &&
			s.Pattern == "" && s.Format == "" && len(s.Enum) == 0:
			p.paths = append(p.paths, pathParam{prm.Name, int(min(*s.MaxLength, 1<<20))})
		case prm.In == openapi3.ParameterInHeader && p.header == "" && s.Type.Is(openapi3.TypeInteger) &&
			s.Min != nil && *s.Min <= 0 && s.Max == nil && s.MultipleOf == nil && len(s.Enum) == 0:
			p.header = http.CanonicalHeaderKey(prm.Name)
		case prm.In == openapi3.ParameterInHeader && !prm.Required:
			p.absent = append(p.absent, http.CanonicalHeaderKey(prm.Name))
		default:
			return p, false
		}
	}
	return p, p.keyOnly
}

// passes reports whether r's parameters, read as params, pass for sure, so that only
// the key is left, which the gate checked when authed is set.
func (p oipPlain) passes(r *http.Request, params map[string]string, authed bool) bool {
	if !authed {
		return false
	}
	for _, h := range p.absent {
		if len(r.Header[h]) > 0 {
			return false
		}
	}
	for _, pp := range p.paths {
		// Bytes bound characters from above: within maxLength in bytes is within it.
		if v, ok := params[pp.name]; !ok || v == "" || len(v) > pp.max {
			return false
		}
	}
	if p.header == "" {
		return true
	}
	vs := r.Header[p.header]
	switch {
	case len(vs) == 0:
		return true
	case len(vs) > 1:
		return false
	}
	return wholeNumber(vs[0])
}

// wholeNumber: 0, or up to 18 digits without a leading zero, which every reader of
// an integer takes as one.
func wholeNumber(s string) bool {
	if s == "" || len(s) > 18 || s[0] == '0' && len(s) > 1 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
