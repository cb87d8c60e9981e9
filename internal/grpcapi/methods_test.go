package grpcapi

import (
	"testing"

	"github.com/inferd/inferd"
	pb "github.com/inferd/inferd/gen/inference"
	"github.com/inferd/inferd/internal/httpapi/operation"
)

// TestMethodsMatchTheContract holds each method's security and scope to those
// openapi.yaml gives the REST operation of the same meaning, so that a key may make
// the same calls whichever protocol it speaks; and checks every method of the service
// has its rule.
func TestMethodsMatchTheContract(t *testing.T) {
	contract, err := inferd.Contract()
	if err != nil {
		t.Fatal(err)
	}
	ops, err := operation.Read(contract)
	if err != nil {
		t.Fatal(err)
	}
	for name, m := range methods {
		op := ops.ByID(m.op)
		if op == nil {
			t.Errorf("%s: the contract has no operation %s", name, m.op)
			continue
		}
		if m.secured != op.Secured || m.scope != op.Scope {
			t.Errorf("%s: secured %v, scope %q; %s has %v, %q", name, m.secured, m.scope, m.op, op.Secured, op.Scope)
		}
	}
	for _, md := range pb.GRPCInferenceService_ServiceDesc.Methods {
		if _, ok := methods[md.MethodName]; !ok {
			t.Errorf("method %s has no rule: it would be admitted without a key", md.MethodName)
		}
	}
}
