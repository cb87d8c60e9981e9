package cli_test

import (
	"strings"
	"testing"
)

// helpCommands are the command names `inferctl --help` lists, read from its output so
// that a command added later is covered without touching this test.
func helpCommands(t *testing.T) []string {
	t.Helper()
	r := inferctl(t, nil, "", "--help")
	_, list, ok := strings.Cut(r.stdout, "Commands:\n")
	if !ok {
		t.Fatalf("--help lists no commands:\n%s", r.stdout)
	}
	var names []string
	for _, line := range strings.Split(list, "\n") {
		if !strings.HasPrefix(line, "  ") {
			break
		}
		names = append(names, strings.Fields(line)[0])
	}
	if len(names) < 8 {
		t.Fatalf("only %d commands in --help:\n%s", len(names), r.stdout)
	}
	return names
}

// TestHelpHidesAPIKey: no help text, of inferctl or of any command, prints the key, from
// INFERD_API_KEY or from --api-key; it says whether one is set. A password in the URL
// is hidden too.
func TestHelpHidesAPIKey(t *testing.T) {
	const envKey, flagKey, password = "env-s3cret-k3y", "flag-s3cret-k3y", "pa55w0rd"
	helps := [][]string{{"--help"}, {"-h"}, {"help"}, nil} // nil: no command, usage on stderr
	for _, c := range helpCommands(t) {
		helps = append(helps, []string{c, "--help"})
	}
	tests := []struct {
		name  string
		env   []string
		flags []string
		state string // what the help says about the key
	}{
		{"INFERD_API_KEY", []string{"INFERD_API_KEY=" + envKey}, nil, "which is set; the value is not shown"},
		{"--api-key", nil, []string{"--api-key", flagKey}, "overridden by --api-key; the value is not shown"},
		{"--api-key= over INFERD_API_KEY", []string{"INFERD_API_KEY=" + envKey}, []string{"--api-key=" + flagKey}, "overridden by --api-key"},
		{"no key", nil, nil, "which is not set: no key is sent"},
		{"password in INFERD_URL", []string{"INFERD_URL=http://user:" + password + "@localhost:1"}, nil, "which is not set"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, h := range helps {
				args := append(append([]string(nil), tc.flags...), h...)
				r := inferctl(t, tc.env, "", args...)
				out := r.stdout + r.stderr
				for _, secret := range []string{envKey, flagKey, password} {
					if strings.Contains(out, secret) {
						t.Errorf("inferctl %s printed %q:\n%s", strings.Join(args, " "), secret, out)
					}
				}
				if !strings.Contains(out, "$INFERD_API_KEY, "+tc.state) {
					t.Errorf("inferctl %s does not say %q about the key:\n%s", strings.Join(args, " "), tc.state, out)
				}
			}
		})
	}
}
