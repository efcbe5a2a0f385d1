package syncworker

import (
	"context"
	"errors"
	"fmt"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Error is every failure a Client method returns: the gRPC code, the server's message and the google.rpc
// details it attached (*errdetails.BadRequest, *errdetails.ErrorInfo, ...). Use errors.As to get it, or
// status.Code(err), which works because Error keeps the original status.
type Error struct {
	Code    codes.Code
	Message string
	Details []any
	status  *status.Status
}

func (e *Error) Error() string { return fmt.Sprintf("syncworker: %s: %s", e.Code, e.Message) }

// GRPCStatus lets status.FromError and status.Code see through the wrapper.
func (e *Error) GRPCStatus() *status.Status { return e.status }

// FieldViolations returns the fields a google.rpc.BadRequest detail names, e.g. "desired.image".
func (e *Error) FieldViolations() []*errdetails.BadRequest_FieldViolation {
	var out []*errdetails.BadRequest_FieldViolation
	for _, d := range e.Details {
		if br, ok := d.(*errdetails.BadRequest); ok {
			out = append(out, br.GetFieldViolations()...)
		}
	}
	return out
}

// IsCode reports whether err is (or wraps) a syncworker Error with the given code.
func IsCode(err error, code codes.Code) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == code
}

// wrap turns what grpc-go returns into an *Error; a context error that ended the call keeps its gRPC code.
func wrap(err error) error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	st, ok := status.FromError(err)
	if !ok {
		st = status.FromContextError(err)
	}
	details := st.Details()
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		details = nil
	}
	return &Error{Code: st.Code(), Message: st.Message(), Details: details, status: st}
}

// transient reports whether a watch should reconnect after err: the connection or server went away, the
// request itself was fine.
func transient(err error) bool {
	switch status.Code(err) {
	case codes.Unavailable, codes.ResourceExhausted, codes.Aborted:
		return true
	default:
		return false
	}
}
