package grpcapi

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/inferd/inferd/internal/admission"
	"github.com/inferd/inferd/internal/auth"
	"github.com/inferd/inferd/internal/problem"
)

// ErrorDomain is the domain of the ErrorInfo every error status carries, whose reason
// is the problem code REST answers the same fault with (invalid_input, rate_limited,
// ...), so a client switches on the same codes whichever protocol it speaks.
const ErrorDomain = "inferd"

func badRequest(detail string) error {
	return &problem.Error{Kind: problem.Invalid, Code: problem.CodeInvalidRequest, Detail: detail}
}

// codeOf is the gRPC code of a kind of refusal.
func codeOf(kind problem.Kind) codes.Code {
	switch kind {
	case problem.Invalid, problem.Mismatched:
		return codes.InvalidArgument
	case problem.Unauthenticated:
		return codes.Unauthenticated
	case problem.Forbidden:
		return codes.PermissionDenied
	case problem.NotFound:
		return codes.NotFound
	case problem.Conflict:
		return codes.FailedPrecondition
	case problem.TooLarge, problem.Limited:
		return codes.ResourceExhausted
	case problem.Unavailable:
		return codes.Unavailable
	}
	return codes.Internal
}

// deadlineSlack is how near its deadline a call cancelled by its client counts as one
// whose deadline passed.
const deadlineSlack = time.Second

// toStatus turns a call's error into its status: the detail REST answers with as the
// message, the problem code as ErrorInfo's reason, and RetryInfo on the statuses a
// client should retry (RESOURCE_EXHAUSTED from a limit, UNAVAILABLE).
func (s *Server) toStatus(ctx context.Context, err error) error {
	if st, ok := status.FromError(err); ok { // gRPC's own (a message over the receive limit, say)
		if len(st.Message()) <= maxMessageBytes {
			return err
		}
		p := st.Proto()
		p.Message = shorten(p.Message)
		return status.FromProto(p).Err()
	}
	if ctx.Err() != nil {
		// A client whose deadline passed cancels the call (RST_STREAM), often before the
		// server's own timer fires: that timer started when the server read the call's
		// headers, later than the client's by the time they took to arrive and be read,
		// a lot of it on a busy machine. A cancel that close to the deadline is the
		// deadline's.
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < deadlineSlack || errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return status.Error(codes.DeadlineExceeded, "the call's deadline passed before its answer was ready")
		}
		return status.Error(codes.Canceled, "the call was cancelled before its answer was ready")
	}
	retry := 0
	var kind problem.Kind
	var code, detail string
	var le *admission.LimitError
	switch {
	case errors.As(err, &le):
		kind, code, detail, retry = problem.Limited, le.Code, le.Detail, le.Retry
	case errors.Is(err, auth.ErrForbidden):
		kind, code, detail = problem.Forbidden, problem.CodeForbidden, err.Error()+"; use a key that holds it"
	case errors.Is(err, auth.ErrUnauthenticated):
		kind, code, detail = problem.Unauthenticated, problem.CodeUnauthorized, unauthenticatedDetail(err)
	default:
		kind, code, detail = s.words.Word(ctx, "", err) // a call has no request id
	}
	if retry == 0 && (kind == problem.Unavailable || kind == problem.Limited) {
		retry = problem.RetryAfterSeconds
	}
	st := status.New(codeOf(kind), shorten(detail))
	info := &errdetails.ErrorInfo{Reason: code, Domain: ErrorDomain}
	var withDetails *status.Status
	if retry > 0 {
		withDetails, err = st.WithDetails(info, &errdetails.RetryInfo{RetryDelay: durationpb.New(time.Duration(retry) * time.Second)})
	} else {
		withDetails, err = st.WithDetails(info)
	}
	if err != nil {
		return st.Err()
	}
	return withDetails.Err()
}

// maxMessageBytes caps a status's message. A client takes a call's trailers up to a
// limit (8 KiB for C-core's, tritonclient.grpc's, and grpc-go's coming default); past
// it the server resets the stream and the client reads INTERNAL, whatever the status
// was. The message is sent twice, percent-encoded in grpc-message and in
// grpc-status-details-bin's base64: 1 KiB fits, whatever its bytes. What makes a
// message longer is a name the call sent (of an input, say), quoted back.
const maxMessageBytes = 1024

// shorten cuts msg to maxMessageBytes, on a character's boundary, saying so.
func shorten(msg string) string {
	if len(msg) <= maxMessageBytes {
		return msg
	}
	const mark = "... (%d bytes cut)"
	cut := maxMessageBytes - len(mark) - 4 // room for the count
	for cut > 0 && !utf8.RuneStart(msg[cut]) {
		cut--
	}
	return msg[:cut] + fmt.Sprintf(mark, len(msg)-cut)
}

func unauthenticatedDetail(err error) string {
	if errors.Is(err, errDuplicateKey) {
		return "send the x-api-key metadata once; this call has it more than once"
	}
	return "send a valid API key in the x-api-key metadata"
}

// codeName is a code as the gRPC specification spells it (INVALID_ARGUMENT), for the
// metrics' labels.
func codeName(c codes.Code) string {
	name := c.String()
	var b strings.Builder
	for i, r := range name {
		if i > 0 && r >= 'A' && r <= 'Z' {
			b.WriteByte('_')
		}
		b.WriteRune(r)
	}
	if c == codes.OK {
		return "OK"
	}
	return strings.ToUpper(b.String())
}
