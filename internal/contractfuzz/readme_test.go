package contractfuzz_test

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/inferd/inferd"
	"github.com/inferd/inferd/internal/contractfuzz"
)

// TestReadmeContractChecks checks docs/development.md's "Contract checks": each command is a make
// target, each pass line is what the check prints, and the numbers it states are the
// defaults.
func TestReadmeContractChecks(t *testing.T) {
	readme := read(t, "../../docs/development.md")
	start := strings.Index(readme, "\n### Contract checks\n")
	if start < 0 {
		t.Fatal("docs/development.md has no Contract checks section")
	}
	section := readme[start+1:]
	if end := regexp.MustCompile(`\n#{2,3} `).FindStringIndex(section); end != nil {
		section = section[:end[0]]
	}
	makefile := read(t, "../../Makefile")
	script := read(t, "../../tools/breaking-check.sh")
	generators := read(t, "../../tools/check-generators.sh")
	summary := regexp.MustCompile("^" + strings.ReplaceAll(regexp.QuoteMeta(strings.TrimSuffix(summaryFormat, "\n")), "%d", `\d+`) + "$")

	var commands, passLines int
	for _, line := range strings.Split(section, "\n") {
		switch {
		case strings.HasPrefix(line, "make "):
			commands++
			target := strings.Fields(line)[1]
			t.Run(line, func(t *testing.T) {
				if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(target) + `:`).MatchString(makefile) {
					t.Errorf("the Makefile has no target %q", target)
				}
			})
		case strings.HasPrefix(line, "# contractfuzz: ") && strings.Contains(line, "server errors"):
			passLines++
			t.Run(line, func(t *testing.T) {
				if !summary.MatchString(strings.TrimPrefix(line, "# ")) {
					t.Fatalf("the fuzzer prints %q", summaryFormat)
				}
				// make fuzz-contract sends FUZZ_REQUESTS requests to every operation, then
				// reads the jobs they created.
				spec, err := inferd.Contract()
				if err != nil {
					t.Fatal(err)
				}
				var n int
				_, _ = fmt.Sscanf(strings.TrimPrefix(line, "# "), summaryFormat, &n, new(int), new(int))
				m := regexp.MustCompile(`(?m)^FUZZ_REQUESTS \?= (\d+)$`).FindStringSubmatch(makefile)
				if want := len(contractfuzz.Operations(spec)) * atoi(t, m); n < want {
					t.Errorf("%d requests, but make fuzz-contract sends %d and more", n, want)
				}
			})
		case strings.HasPrefix(line, "# breaking-check: "):
			passLines++
			t.Run(line, func(t *testing.T) {
				// The script prints "$rev keeps every client of $base working (major $mr)".
				m := regexp.MustCompile(`^# breaking-check: (\S+) keeps every client of (\S+) working \(major (\d+)\)$`).FindStringSubmatch(line)
				if m == nil || !strings.Contains(script, `keeps every client of $base working (major $mr)`) {
					t.Fatalf("tools/breaking-check.sh prints no such line")
				}
				if _, err := os.Stat("../../" + m[2]); err != nil {
					t.Errorf("the base contract: %v", err)
				}
				if !strings.Contains(makefile, "breaking-check.sh "+m[2]+" "+m[1]) {
					t.Errorf("make check-breaking does not compare %s with %s", m[1], m[2])
				}
			})
		case strings.HasPrefix(line, "# check-generators: "):
			passLines++
			t.Run(line, func(t *testing.T) {
				if !strings.Contains(generators, `echo "`+strings.TrimPrefix(line, "# ")+`"`) {
					t.Errorf("tools/check-generators.sh prints no such line")
				}
			})
		}
	}
	if commands < 3 || passLines < 3 {
		t.Errorf("found %d commands and %d pass lines, want the fuzzer's, the breaking check's and the generators check's", commands, passLines)
	}
	t.Run("defaults", func(t *testing.T) {
		if want := fmt.Sprintf("with %d requests per", defaultRequests); !strings.Contains(section, want) {
			t.Errorf("the section does not say %q", want)
		}
		m := regexp.MustCompile(`(?m)^FUZZ_REQUESTS \?= (\d+)$`).FindStringSubmatch(makefile)
		if m == nil || !strings.Contains(readme, "requests per operation ("+m[1]+")") {
			t.Errorf("docs/development.md and the Makefile disagree on FUZZ_REQUESTS (Makefile: %v)", m)
		}
	})
}

func atoi(t *testing.T, m []string) int {
	t.Helper()
	if len(m) < 2 {
		t.Fatal("no FUZZ_REQUESTS in the Makefile")
	}
	n, err := strconv.Atoi(m[1])
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
