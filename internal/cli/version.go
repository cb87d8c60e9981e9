package cli

import (
	"runtime"
	"runtime/debug"

	"go.yaml.in/yaml/v3"

	"github.com/inferd/inferd"
)

// version and commit are set by `make build` (-ldflags -X), as for inferd. A plain
// `go build` or `go install` leaves them, and the commit comes from the VCS stamp the
// go command adds to the binary.
var (
	version = "dev"
	commit  = ""
)

// versionInfo is what `inferctl version` prints, keys in alphabetical order like every
// other answer inferctl prints.
type versionInfo struct {
	Commit   string `json:"commit"`
	Contract string `json:"contract"`
	Go       string `json:"go"`
	Version  string `json:"version"`
}

func runVersion(e *env, args []string) error {
	fs := e.flagSet("version")
	pos, err := e.parse(fs, "version", args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return usagef("version takes no arguments")
	}
	return e.print(buildVersion())
}

func buildVersion() versionInfo {
	v := versionInfo{Commit: commit, Contract: contractVersion(), Go: runtime.Version(), Version: version}
	if v.Commit == "" {
		v.Commit = vcsRevision()
	}
	return v
}

// vcsRevision is the commit the go command stamped into the binary, shortened as git
// rev-parse --short=12 does, with -dirty for a build from a modified work tree.
func vcsRevision() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	var rev, dirty string
	for _, s := range bi.Settings {
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

// contractVersion is info.version of the openapi.yaml inferctl was built with: the
// contract it speaks.
func contractVersion() string {
	var doc struct {
		Info struct {
			Version string `yaml:"version"`
		} `yaml:"info"`
	}
	if err := yaml.Unmarshal(inferd.OpenAPI, &doc); err != nil {
		return "unknown"
	}
	return doc.Info.Version
}
