package httpapi

import (
	"slices"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/inferd/inferd/internal/auth"
)

// scopedOperations lists, sorted, the ids of the operations that require scope: the
// operations the rate limit applies to when scope is predict.
func scopedOperations(spec *openapi3.T, scope auth.Scope) []string {
	var ids []string
	for _, item := range spec.Paths.Map() {
		for _, op := range item.Operations() {
			if v, ok := op.Extensions[scopeExtension].(string); ok && auth.Scope(v) == scope {
				ids = append(ids, op.OperationID)
			}
		}
	}
	slices.Sort(ids)
	return ids
}
