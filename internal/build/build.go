package build

import (
	"runtime/debug"

	"go.yaml.in/yaml/v3"

	"github.com/inferd/inferd"
)

// Version and commit are set by `make build` (-ldflags -X) from git describe and git
// rev-parse. A plain `go build` or `go install` leaves them, and Commit then reads the
// VCS stamp the go command adds to the binary.
var (
	Version = "dev"
	commit  = ""
)

// Commit is the commit the binary was built from, or "unknown".
func Commit() string {
	if commit != "" {
		return commit
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	return revision(info.Settings)
}

// Contract is info.version of the openapi.yaml built into the binary: the contract it
// serves or speaks. Only that field is read, so it costs no full load of the document.
func Contract() string {
	var doc struct {
		Info struct {
			Version string `yaml:"version"`
		} `yaml:"info"`
	}
	if err := yaml.Unmarshal(inferd.OpenAPI, &doc); err != nil || doc.Info.Version == "" {
		return "unknown"
	}
	return doc.Info.Version
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
