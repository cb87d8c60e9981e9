package readmetest

import (
	"fmt"
	"path"
	"regexp"
	"strings"
	"unicode"
)

// Link is a relative link of a Markdown document: Target is a path from the
// repository's root (empty for a link within the document), Anchor what follows '#'.
type Link struct {
	Line           int
	Target, Anchor string
}

var (
	inlineLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	codeSpan   = regexp.MustCompile("`[^`]*`")
	heading    = regexp.MustCompile(`^#{1,6} +(.+?) *#*$`)
)

// Links returns the relative links of the document doc (its path from the
// repository's root), outside code blocks and code spans; links with a scheme
// (https:, mailto:) are left out.
func Links(doc, text string) []Link {
	var out []Link
	fenced := false
	for i, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		for _, m := range inlineLink.FindAllStringSubmatch(codeSpan.ReplaceAllString(line, ""), -1) {
			target, anchor, _ := strings.Cut(m[1], "#")
			if strings.Contains(target, ":") {
				continue
			}
			if target != "" {
				target = path.Join(path.Dir(doc), target)
			}
			out = append(out, Link{Line: i + 1, Target: target, Anchor: anchor})
		}
	}
	return out
}

// Anchors returns the anchors GitHub gives the headings of a Markdown document: the
// heading in lower case, without punctuation, spaces as hyphens, and "-1", "-2" after
// a repeated one.
func Anchors(text string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	fenced := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
			continue
		}
		m := heading.FindStringSubmatch(line)
		if fenced || m == nil {
			continue
		}
		slug := Slug(m[1])
		if n := seen[slug]; n > 0 {
			out[fmt.Sprintf("%s-%d", slug, n)] = true
		} else {
			out[slug] = true
		}
		seen[slug]++
	}
	return out
}

// Slug is the anchor GitHub gives a heading's text.
func Slug(text string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(text) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}
