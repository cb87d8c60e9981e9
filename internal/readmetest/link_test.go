package readmetest_test

import (
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/inferd/inferd/internal/readmetest"
)

// documents returns README.md and every Markdown file under docs/, by their paths
// from the repository's root, with their text.
func documents(t *testing.T, root string) map[string]string {
	t.Helper()
	docs := map[string]string{}
	read := func(name string) {
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(name)))
		if err != nil {
			t.Fatal(err)
		}
		docs[name] = string(b)
	}
	read("README.md")
	err := fs.WalkDir(os.DirFS(root), "docs", func(name string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(name, ".md") {
			read(name)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return docs
}

// TestLinks fails on a relative link of README.md or docs/ whose file does not exist,
// or whose anchor names no heading of the Markdown file it points into.
func TestLinks(t *testing.T) {
	root := readmetest.Root(t)
	docs := documents(t, root)
	for _, name := range slices.Sorted(maps.Keys(docs)) {
		t.Run(name, func(t *testing.T) {
			links := readmetest.Links(name, docs[name])
			for _, l := range links {
				target := l.Target
				if target == "" {
					target = name
				}
				if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(target))); err != nil {
					t.Errorf("line %d: %s does not exist", l.Line, target)
					continue
				}
				if l.Anchor == "" || path.Ext(target) != ".md" {
					continue
				}
				text, ok := docs[target]
				if !ok {
					b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(target)))
					if err != nil {
						t.Fatal(err)
					}
					text = string(b)
				}
				if !readmetest.Anchors(text)[l.Anchor] {
					t.Errorf("line %d: %s has no heading #%s", l.Line, target, l.Anchor)
				}
			}
		})
	}
}

// TestDocsReachable fails when a document under docs/ cannot be reached from
// README.md by following links: what moved out of the README must stay findable.
func TestDocsReachable(t *testing.T) {
	docs := documents(t, readmetest.Root(t))
	reached := map[string]bool{"README.md": true}
	for queue := []string{"README.md"}; len(queue) > 0; queue = queue[1:] {
		for _, l := range readmetest.Links(queue[0], docs[queue[0]]) {
			if _, ok := docs[l.Target]; ok && !reached[l.Target] {
				reached[l.Target] = true
				queue = append(queue, l.Target)
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(docs)) {
		if !reached[name] {
			t.Errorf("%s is linked from nothing README.md leads to", name)
		}
	}
}

func TestLinksParse(t *testing.T) {
	text := "see [a](docs/a.md#x-y), [web](https://example.com), `[code](nope.md)`\n```\n[in a block](no.md)\n```\n![pic](shots/p.png)\n"
	got := readmetest.Links("docs/b.md", text)
	want := []readmetest.Link{{1, "docs/docs/a.md", "x-y"}, {5, "docs/shots/p.png", ""}}
	if !slices.Equal(got, want) {
		t.Errorf("Links = %v, want %v", got, want)
	}
}

func TestSlug(t *testing.T) {
	for _, tt := range []struct{ heading, want string }{
		{"Open Inference Protocol (KServe v2, Triton)", "open-inference-protocol-kserve-v2-triton"},
		{"Command line: inferctl", "command-line-inferctl"},
		{"`MAX_CONNECTIONS` and friends", "max_connections-and-friends"},
		{"A predict request, file by file", "a-predict-request-file-by-file"},
	} {
		t.Run(tt.heading, func(t *testing.T) {
			if got := readmetest.Slug(tt.heading); got != tt.want {
				t.Errorf("Slug(%q) = %q, want %q", tt.heading, got, tt.want)
			}
		})
	}
	if a := readmetest.Anchors("# A\n## B\n```\n# not\n```\n## B\n"); !a["a"] || !a["b"] || !a["b-1"] || a["not"] {
		t.Errorf("Anchors = %v", a)
	}
}

// docRef is a path into docs/ as code and scripts cite it: "see docs/design.md#anchor".
var docRef = regexp.MustCompile(`\bdocs/([a-z0-9_-]+\.md)(#[a-z0-9_-]+)?`)

// TestCodeCitesDocs fails when a comment of the code, the tests or the scripts names
// a page of docs/ that does not exist, or an anchor the page has no heading for: the
// comments say why in a sentence and point to the page that says the rest. This
// package, whose tests cite made-up pages, is left out.
func TestCodeCitesDocs(t *testing.T) {
	root := readmetest.Root(t)
	docs := documents(t, root)
	n := 0
	code := func(name string) bool {
		return strings.HasSuffix(name, ".go") || strings.HasSuffix(name, ".sh") || name == "Makefile"
	}
	readmetest.Files(t, root, code, func(rel string, b []byte) {
		for _, m := range docRef.FindAllStringSubmatch(string(b), -1) {
			n++
			text, ok := docs["docs/"+m[1]]
			if !ok {
				t.Errorf("%s cites docs/%s, which does not exist", rel, m[1])
				continue
			}
			if m[2] != "" && !readmetest.Anchors(text)[m[2][1:]] {
				t.Errorf("%s cites docs/%s%s: the page has no such heading", rel, m[1], m[2])
			}
		}
	}, "gen", "readmetest")
	if n == 0 {
		t.Error("no code cites docs/: the walk found nothing")
	}
}
