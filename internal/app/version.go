package app

import (
	"fmt"
	"runtime/debug"

	"github.com/inferd/inferd"
)

// version and commit are set by `make build` (-ldflags -X) from git describe and git
// rev-parse. A plain `go build` leaves them, and the commit comes from the VCS stamp
// the go command adds to the binary.
var (
	version = "dev"
	commit  = ""
)

// versionLine is what --version prints: the build and the contract it serves, the
// two things a bug report needs.
func versionLine(name string) string {
	c := commit
	if c == "" {
		c = vcsRevision()
	}
	contract := "unknown"
	if spec, err := inferd.Contract(); err == nil && spec.Info != nil {
		contract = spec.Info.Version
	}
	return fmt.Sprintf("%s version %s, commit %s, contract %s", name, version, c, contract)
}

// vcsRevision is the commit the go command stamped into the binary.
func vcsRevision() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	return revision(info.Settings)
}

// revision shortens the stamped commit as git rev-parse --short=12 does, with -dirty
// for a build from a modified work tree.
func revision(settings []debug.BuildSetting) string {
	var rev, dirty string
	for _, s := range settings {
		switch {
		case s.Key == "vcs.revision":
			rev = s.Value
		case s.Key == "vcs.modified" && s.Value == "true":
			dirty = "-dirty"
		}
	}
	if rev == "" {
		return "unknown"
	}
	return rev[:min(len(rev), 12)] + dirty
}
