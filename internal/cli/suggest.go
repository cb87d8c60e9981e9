package cli

import (
	"flag"
	"fmt"
	"slices"
	"strings"
)

// maxTypo is how far a typed word may be from a known one to be offered instead:
// two edits catch a dropped, doubled or swapped letter (relaod, modles) without
// offering unrelated words of the same length.
const maxTypo = 2

// suggest returns the known words the typed one is most likely a typo of: those
// within maxTypo edits, and those it is a prefix of (job -> jobs), nearest first. A
// short word may be only half wrong, else -x would be offered -o and -f.
func suggest(typed string, known []string) []string {
	t := strings.ToLower(typed)
	limit := min(maxTypo, len([]rune(t))/2)
	type near struct {
		word string
		d    int
	}
	var found []near
	for _, k := range known {
		d := distance(t, strings.ToLower(k))
		if d <= limit || (t != "" && strings.HasPrefix(strings.ToLower(k), t)) {
			found = append(found, near{k, d})
		}
	}
	slices.SortStableFunc(found, func(a, b near) int { return a.d - b.d })
	out := make([]string, len(found))
	for i, n := range found {
		out[i] = n.word
	}
	return out
}

// distance is the optimal string alignment distance: insertions, deletions,
// substitutions and swaps of two neighbours each cost one, the typos people make.
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}

// didYouMean is the clause a usage error ends with when the typed word has near
// known ones: `; did you mean "get"?` (empty when none is near).
func didYouMean(typed string, known []string) string {
	s := suggest(typed, known)
	if len(s) == 0 {
		return ""
	}
	q := make([]string, len(s))
	for i, w := range s {
		q[i] = fmt.Sprintf("%q", w)
	}
	if len(q) == 1 {
		return "; did you mean " + q[0] + "?"
	}
	return "; did you mean " + strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1] + "?"
}

// unknownCommand is the message for a command inferctl does not have, in the shape
// kubectl and gh print: the nearest commands under "Did you mean this?".
func unknownCommand(name string) string {
	known := []string{"help"}
	for _, c := range commands() {
		known = append(known, c.name)
	}
	s := suggest(name, known)
	if len(s) == 0 {
		return fmt.Sprintf("inferctl: unknown command %q; run 'inferctl --help' for the list\n", name)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "inferctl: unknown command %q\n\nDid you mean this?\n", name)
	for _, w := range s {
		b.WriteString("\t" + w + "\n")
	}
	b.WriteString("\nrun 'inferctl --help' for the list\n")
	return b.String()
}

// flagProblem words a flag package error, adding the nearest flag of fs when the
// error is an unknown one.
func flagProblem(fs *flag.FlagSet, err error) string {
	const unknown = "flag provided but not defined: -"
	name, ok := strings.CutPrefix(err.Error(), unknown)
	if !ok {
		return err.Error()
	}
	var known []string
	fs.VisitAll(func(f *flag.Flag) { known = append(known, f.Name) })
	s := suggest(name, known)
	if len(s) == 0 {
		return err.Error()
	}
	for i, w := range s {
		s[i] = dashes(w)
	}
	return err.Error() + "; did you mean " + strings.Join(s, " or ") + "?"
}

// dashes writes a flag as the help does: -f and -o with one dash, the rest with two.
func dashes(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}
