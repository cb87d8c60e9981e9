package grpcapi

import (
	"unicode/utf8"

	protov2 "google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// maxNameChars is the most characters a model's or a version's name has: the
// contract's maxLength for REST's paths and bodies. REST refuses a longer one with
// 400 before it is looked up; so does checkNames, and a NOT_FOUND quoting a name of
// 100,000 characters is not sent (nor cut, past a client's limit on trailers, into
// an INTERNAL).
const maxNameChars = 128

// nameFields are the fields of the service's requests that name a model or a version,
// with what they name, in the order they are checked.
var nameFields = []struct {
	field protoreflect.Name
	what  string
}{
	{"model_name", "a model's name"},
	{"name", "a model's name"},
	{"model_version", "a version"},
	{"version", "a version"},
}

// checkNames refuses a request whose model or version name is longer than a name can
// be.
func checkNames(req any) error {
	m, ok := req.(protov2.Message)
	if !ok {
		return nil
	}
	r := m.ProtoReflect()
	fields := r.Descriptor().Fields()
	for _, f := range nameFields {
		fd := fields.ByName(f.field)
		if fd == nil || fd.Kind() != protoreflect.StringKind || fd.Cardinality() == protoreflect.Repeated {
			continue
		}
		if n := utf8.RuneCountInString(r.Get(fd).String()); n > maxNameChars {
			return invalid("%s is %d characters long; %s has at most %d", f.field, n, f.what, maxNameChars)
		}
	}
	return nil
}
