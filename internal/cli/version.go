package cli

import (
	"runtime"
	"runtime/debug"

	"go.yaml.in/yaml/v3"

	"github.com/inferd/inferd"
)

// versionInfo is what `inferctl version` prints, keys in alphabetical order like every
// other answer inferctl prints.
type versionInfo struct {
	Commit   string `json:"commit"`
	Contract string `json:"contract"`
	Go       string `json:"go"`
	Modified bool   `json:"modified,omitempty"`
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
	v := versionInfo{Version: "(devel)", Commit: "unknown", Contract: contractVersion(), Go: runtime.Version()}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return v
	}
	if bi.Main.Version != "" {
		v.Version = bi.Main.Version
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Commit = s.Value
		case "vcs.modified":
			v.Modified = s.Value == "true"
		}
	}
	return v
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
