package grpcapi

import (
	"fmt"
	"strings"
	"sync"

	protov2 "google.golang.org/protobuf/proto"

	pb "github.com/inferd/inferd/gen/inference"
)

// grpc-go words every error of a codec's Unmarshal as INTERNAL ("grpc: failed to
// unmarshal the received message"), before any interceptor sees the call, as gRPC's
// status code table lists a request proto that does not parse (C++'s library too, so
// Triton answers the same). A message that does not parse is the caller's fault, and
// docs/grpc.md answers a malformed call INVALID_ARGUMENT: so for a message of the
// service, whose methods are all unary, Codec keeps the error aside and reports
// success, and the interceptor, which grpc-go's generated handler calls right after a
// decode that succeeded, takes the error back (Undecodable) and answers it before the
// handler sees the half-read message. Other services' messages (health, reflection,
// whose streams decode with no interceptor) keep grpc-go's answer.

// undecodable maps a message Codec could not read to why.
var undecodable sync.Map // proto.Message -> error

// servicePackage is the protobuf package of the service's messages.
var servicePackage = (&pb.ModelInferRequest{}).ProtoReflect().Descriptor().ParentFile().Package()

// setAside keeps err for Undecodable when v is one of the service's messages, and says
// whether it did.
func setAside(v any, err error) bool {
	m, ok := v.(protov2.Message)
	if !ok || m.ProtoReflect().Descriptor().ParentFile().Package() != servicePackage {
		return false
	}
	undecodable.Store(v, err)
	return true
}

// Undecodable is the error, worded for the caller, of a message Codec could not read
// (nil for one it read), forgotten once asked.
func Undecodable(req any) error {
	e, ok := undecodable.LoadAndDelete(req)
	if !ok {
		return nil
	}
	name := req.(protov2.Message).ProtoReflect().Descriptor().FullName()
	// The runtime's errors start "proto:" followed by a space or, at random, a
	// no-break space, so that nobody matches on them.
	why := strings.ReplaceAll(e.(error).Error(), "\u00a0", " ")
	why = strings.TrimPrefix(why, "proto: ")
	return badRequest(fmt.Sprintf("the message is not an %s as api/inference.proto defines it (%s): send the protobuf encoding of one", name, why))
}
