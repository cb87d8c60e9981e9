package build

import (
	"runtime/debug"
	"strings"
	"testing"

	"github.com/inferd/inferd"
)

func TestRevision(t *testing.T) {
	const rev = "69a1e6fcb3ec0123456789abcdef0123456789ab"
	tests := []struct {
		name     string
		settings []debug.BuildSetting
		want     string
	}{
		{"no VCS stamp (go test, -buildvcs=false)", nil, "unknown"},
		{"clean", []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: "false"}}, "69a1e6fcb3ec"},
		{"modified work tree", []debug.BuildSetting{{Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: "true"}}, "69a1e6fcb3ec-dirty"},
		{"short revision", []debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}}, "abc"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := revision(tt.settings); got != tt.want {
				t.Errorf("revision = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestContractIsTheEmbeddedInfoVersion(t *testing.T) {
	if got := Contract(); got == "unknown" || !strings.Contains(string(inferd.OpenAPI), "\n  version: "+got+"\n") {
		t.Errorf("Contract() = %q, not openapi.yaml's info.version", got)
	}
}
