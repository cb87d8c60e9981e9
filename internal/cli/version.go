package cli

import (
	"runtime"

	"github.com/inferd/inferd/internal/build"
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
	return versionInfo{Commit: build.Commit(), Contract: build.Contract(), Go: runtime.Version(), Version: build.Version}
}
