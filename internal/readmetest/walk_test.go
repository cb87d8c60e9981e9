package readmetest_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/inferd/inferd/internal/readmetest"
)

// The walks of docs/development.md name files in backticks, by their path from the
// repository's root (`internal/registry/predict.go`) or, after it, by their name in
// the package or directory last named (`route.go`, `redisstore/once.go`); and the
// functions, methods and types they go through beside a file, in parentheses after it
// (`request.go` (`observe`)) or before it (`Server.Predict` (`server.go`)).
var (
	walkHeading = regexp.MustCompile(`(?m)^## (.+), file by file$`)
	// span is one backticked name and the text up to the next: the parentheses that
	// tie names to a file are read from what lies between.
	span  = regexp.MustCompile("`([^`]+)`")
	ident = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$`)
)

// TestWalks fails when a walk of docs/development.md names a file that is not there,
// or a function, method or type beside a file that the file does not declare: a file
// moved or a function renamed takes its walk's line along.
func TestWalks(t *testing.T) {
	root := readmetest.Root(t)
	b, err := os.ReadFile(filepath.Join(root, "docs", "development.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	heads := walkHeading.FindAllStringSubmatchIndex(doc, -1)
	if len(heads) < 3 {
		t.Fatalf("docs/development.md has %d walks (\"## ..., file by file\"), want at least 3", len(heads))
	}
	for i, h := range heads {
		end := len(doc)
		if i+1 < len(heads) {
			end = heads[i+1][0]
		}
		if next := strings.Index(doc[h[1]:end], "\n## "); next >= 0 {
			end = h[1] + next
		}
		name := doc[h[2]:h[3]]
		t.Run(name, func(t *testing.T) { checkWalk(t, root, doc[h[1]:end]) })
	}
}

func checkWalk(t *testing.T, root, walk string) {
	// dirs are the packages and directories the walk has named by their full path,
	// the latest first: a file's name alone is looked for in each, and beside them.
	var dirs []string
	named := func(d string) {
		for i, x := range dirs {
			if x == d {
				dirs = append(dirs[:i], dirs[i+1:]...)
				break
			}
		}
		dirs = append([]string{d}, dirs...)
	}
	decls := map[string]map[string]bool{}
	declared := func(file string) map[string]bool {
		if d, ok := decls[file]; ok {
			return d
		}
		d := declsOf(t, filepath.Join(root, filepath.FromSlash(file)))
		decls[file] = d
		return d
	}
	// resolve finds a named file or directory; "" when there is none.
	resolve := func(name string) string {
		if strings.HasPrefix(name, "internal/") || strings.HasPrefix(name, "cmd/") {
			if exists(root, name) {
				return name
			}
			return ""
		}
		for _, d := range dirs {
			for ; d != "." && d != ""; d = path.Dir(d) {
				if exists(root, path.Join(d, name)) {
					return path.Join(d, name)
				}
			}
		}
		return ""
	}
	ms := span.FindAllStringSubmatchIndex(walk, -1)
	files := make([]string, len(ms)) // the file each span names, "" for none
	for i, m := range ms {
		s := walk[m[2]:m[3]]
		switch {
		case strings.HasSuffix(s, ".go"):
			f := resolve(s)
			if f == "" {
				t.Errorf("names %s, which is not in any package the walk named before it (%s)", s, strings.Join(dirs, ", "))
				continue
			}
			files[i] = f
			if strings.Contains(s, "/") {
				named(path.Dir(f))
			}
		case (strings.HasPrefix(s, "internal/") || strings.HasPrefix(s, "cmd/")) && !strings.ContainsAny(s, " ("):
			if !exists(root, s) {
				t.Errorf("names %s, which is not there", s)
				continue
			}
			named(s)
		}
	}
	// A name is tied to the file of the parenthesis it stands in, right after the file
	// ("`f.go` (`a`, `b`)"), or to the file in the parenthesis right after it
	// ("`a` (`f.go`)").
	for i, m := range ms {
		s := walk[m[2]:m[3]]
		if files[i] != "" || !ident.MatchString(s) {
			continue
		}
		file := ""
		if i+1 < len(ms) && files[i+1] != "" && strings.TrimSpace(walk[m[1]:ms[i+1][0]]) == "(" {
			file = files[i+1]
		}
		for j := i - 1; file == "" && j >= 0; j-- {
			between := walk[ms[j][1]:ms[j+1][0]]
			if files[j] != "" && strings.TrimSpace(between) == "(" {
				file = files[j]
				break
			}
			if strings.TrimSpace(between) != "," || !ident.MatchString(walk[ms[j][2]:ms[j][3]]) && files[j] == "" {
				break
			}
		}
		if file == "" {
			continue
		}
		pkg, name, qualified := strings.Cut(s, ".")
		if d := declared(file); !d[s] && (!qualified || pkg != path.Base(path.Dir(file)) || !d[name]) {
			t.Errorf("names %s beside %s, which does not declare it", s, file)
		}
	}
}

// declsOf is what a Go file declares at its top level: functions, types, variables
// and constants by name, methods as Type.Method and by name alone.
func declsOf(t *testing.T, file string) map[string]bool {
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	d := map[string]bool{}
	for _, decl := range f.Decls {
		switch decl := decl.(type) {
		case *ast.FuncDecl:
			d[decl.Name.Name] = true
			if decl.Recv != nil && len(decl.Recv.List) == 1 {
				d[recvName(decl.Recv.List[0].Type)+"."+decl.Name.Name] = true
			}
		case *ast.GenDecl:
			for _, s := range decl.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					d[s.Name.Name] = true
				case *ast.ValueSpec:
					for _, n := range s.Names {
						d[n.Name] = true
					}
				}
			}
		}
	}
	return d
}

func recvName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.StarExpr:
		return recvName(e.X)
	case *ast.IndexExpr:
		return recvName(e.X)
	case *ast.IndexListExpr:
		return recvName(e.X)
	case *ast.Ident:
		return e.Name
	}
	return ""
}

func exists(root, name string) bool {
	_, err := os.Stat(filepath.Join(root, filepath.FromSlash(name)))
	return err == nil
}
