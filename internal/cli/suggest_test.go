package cli

import (
	"slices"
	"testing"
)

func TestSuggest(t *testing.T) {
	commands := []string{"predict", "batch", "submit", "jobs", "models", "reload", "memory", "version", "help"}
	flags := []string{"api-key", "chunk", "f", "o", "timeout", "url", "version"}
	tests := []struct {
		typed string
		known []string
		want  []string
	}{
		{"relaod", commands, []string{"reload"}},      // two letters swapped
		{"predcit", commands, []string{"predict"}},    // the same, further in
		{"modles", commands, []string{"models"}},      // and again
		{"submt", commands, []string{"submit"}},       // one dropped
		{"jobss", commands, []string{"jobs"}},         // one doubled
		{"Reload", commands, []string{"reload"}},      // case
		{"job", commands, []string{"jobs"}},           // a prefix
		{"m", commands, []string{"models", "memory"}}, // a prefix of two, in the list's order
		{"hlep", commands, []string{"help"}},
		{"frobnicate", commands, nil},
		{"", commands, nil},
		{"chnuk", flags, []string{"chunk"}},
		{"x", flags, nil}, // one letter off -o and -f, but a one-letter word is all typo
		{"v", flags, []string{"version"}},
		{"ulr", flags, []string{"url"}},
		{"uri", flags, []string{"url"}},
		{"ab", flags, nil}, // two edits from -f and -o is too far for two letters
	}
	for _, tc := range tests {
		t.Run(tc.typed, func(t *testing.T) {
			if got := suggest(tc.typed, tc.known); !slices.Equal(got, tc.want) {
				t.Errorf("suggest(%q) = %q, want %q", tc.typed, got, tc.want)
			}
		})
	}
}

func TestDistance(t *testing.T) {
	tests := []struct {
		a, b string
		d    int
	}{
		{"", "", 0}, {"a", "", 1}, {"", "abc", 3}, {"reload", "reload", 0},
		{"relaod", "reload", 1}, {"reloda", "reload", 1}, {"rload", "reload", 1},
		{"reeload", "reload", 1}, {"rexoad", "reload", 1}, {"kitten", "sitting", 3},
		{"modèls", "models", 1}, // a rune, not a byte, is one edit
	}
	for _, tc := range tests {
		if got := distance(tc.a, tc.b); got != tc.d {
			t.Errorf("distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.d)
		}
		if got := distance(tc.b, tc.a); got != tc.d {
			t.Errorf("distance(%q, %q) = %d, want %d", tc.b, tc.a, got, tc.d)
		}
	}
}
