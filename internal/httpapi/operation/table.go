package operation

import (
	"cmp"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/inferd/inferd/internal/auth"
)

// ScopeExtension is the operation extension in openapi.yaml that names the scope an
// operation needs. Reading it here keeps openapi.yaml the only list of who may call
// what.
const ScopeExtension = "x-required-scope"

// FastPath are the operations whose bodies are decoded once: the generic validator
// decodes a body into `any` and the strict handler decodes it again, which was most
// of a prediction's CPU. httpapi's router hands them the decoded body, bypassing the
// generated handler's own decoding.
var FastPath = []string{"predict", "predictBatch", "submitJob", "submitBatchJob"}

// OIPInfer are the Open Inference Protocol's infer operations: their bodies (a JSON
// request, or a JSON header and raw tensors) are read once and decoded by internal/oip,
// never by the generic validator, which would decode megabytes of tensor data into
// `any`.
var OIPInfer = []string{"oipInfer", "oipInferVersion"}

// Operation is one operation of the contract, as the server's layers need it.
type Operation struct {
	// ID is the operationId, as openapi.yaml spells it: the label of HTTP metrics.
	ID string
	// Method is upper case; Pattern is the contract's path, which is also chi's route
	// pattern for it.
	Method, Pattern string
	// Scope is the scope of its x-required-scope, "" when it names none.
	Scope auth.Scope
	// Security is its security requirements, the contract's default when it has none
	// of its own; Secured is set unless they are empty.
	Security openapi3.SecurityRequirements
	Secured  bool
	// Bodyless is set on a POST whose operation takes no request body.
	Bodyless bool
	// FastPath is set on the operations of FastPath, OIP on those of OIPInfer.
	FastPath, OIP bool
	// Spec is the contract's operation.
	Spec *openapi3.Operation
}

// route names an operation by its method and route pattern; a struct rather than a
// joined string, so that a lookup allocates nothing.
type route struct{ method, pattern string }

// Table is the contract's operations, read once.
type Table struct {
	all     []*Operation
	byRoute map[route]*Operation
	aliases map[route]string
}

// Read reads spec's operations. It fails when spec lacks one of the operations of
// FastPath or OIPInfer (as POSTs), which the server's request paths are built for.
func Read(spec *openapi3.T) (*Table, error) {
	t := &Table{byRoute: map[route]*Operation{}, aliases: map[route]string{}}
	for pattern, item := range spec.Paths.Map() {
		for method, op := range item.Operations() {
			o := &Operation{ID: op.OperationID, Method: strings.ToUpper(method), Pattern: pattern, Spec: op, Security: spec.Security}
			if op.Security != nil {
				o.Security = *op.Security
			}
			o.Secured = len(o.Security) > 0
			if v, ok := op.Extensions[ScopeExtension].(string); ok {
				o.Scope = auth.Scope(v)
			}
			o.Bodyless = o.Method == http.MethodPost && op.RequestBody == nil
			o.FastPath = o.Method == http.MethodPost && slices.Contains(FastPath, o.ID)
			o.OIP = o.Method == http.MethodPost && slices.Contains(OIPInfer, o.ID)
			t.all = append(t.all, o)
			t.byRoute[route{o.Method, o.Pattern}] = o
		}
	}
	slices.SortFunc(t.all, func(a, b *Operation) int {
		return cmp.Or(strings.Compare(a.Pattern, b.Pattern), strings.Compare(a.Method, b.Method))
	})
	for _, ids := range [][]string{FastPath, OIPInfer} {
		for _, id := range ids {
			if o := t.ByID(id); o == nil || o.Method != http.MethodPost {
				return nil, fmt.Errorf("the contract has no POST operation %s", id)
			}
		}
	}
	return t, nil
}

// All returns the operations, ordered by pattern and method.
func (t *Table) All() []*Operation { return t.all }

// Lookup returns the operation chi routed a request of method to by pattern, or nil.
func (t *Table) Lookup(method, pattern string) *Operation {
	return t.byRoute[route{method, pattern}]
}

// ByID returns the operation of id, or nil.
func (t *Table) ByID(id string) *Operation {
	for _, o := range t.all {
		if o.ID == id {
			return o
		}
	}
	return nil
}

// Alias names a route that the server mounts beyond the contract's patterns (a
// wildcard under an operation's path) by that operation's id, for ID alone: the
// other layers do not serve it.
func (t *Table) Alias(method, pattern, id string) {
	t.aliases[route{method, pattern}] = id
}

// ID returns the id of the operation, or of the alias, of method and pattern.
func (t *Table) ID(method, pattern string) (string, bool) {
	if o := t.byRoute[route{method, pattern}]; o != nil {
		return o.ID, true
	}
	id, ok := t.aliases[route{method, pattern}]
	return id, ok
}

// WithScope returns the sorted ids of the operations that require scope.
func (t *Table) WithScope(scope auth.Scope) []string {
	var ids []string
	for _, o := range t.all {
		if o.Scope == scope {
			ids = append(ids, o.ID)
		}
	}
	slices.Sort(ids)
	return ids
}

// APIKeyScheme is the contract's one security scheme, the X-API-Key header.
const APIKeyScheme = "ApiKeyAuth"
