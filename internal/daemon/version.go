package daemon

import (
	"fmt"

	"github.com/inferd/inferd/internal/build"
)

// versionLine is what --version prints: the build and the contract it serves, the
// two things a bug report needs.
func versionLine(name string) string {
	return fmt.Sprintf("%s version %s, commit %s, contract %s", name, build.Version, build.Commit(), build.Contract())
}
