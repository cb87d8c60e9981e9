package job

import "testing"

func TestStatusCanMoveTo(t *testing.T) {
	all := []Status{StatusCreated, StatusPending, StatusRunning, StatusSucceeded, StatusFailed, StatusCancelled}
	// Forward moves only; skipping ahead is allowed (a job that could not be queued
	// fails straight from created), going back or leaving a final status is not.
	allowed := map[Status][]Status{
		StatusCreated: {StatusPending, StatusRunning, StatusSucceeded, StatusFailed, StatusCancelled},
		StatusPending: {StatusRunning, StatusSucceeded, StatusFailed, StatusCancelled},
		StatusRunning: {StatusSucceeded, StatusFailed, StatusCancelled},
	}
	for _, from := range all {
		for _, to := range all {
			want := false
			for _, s := range allowed[from] {
				want = want || s == to
			}
			t.Run(string(from)+"->"+string(to), func(t *testing.T) {
				if got := from.CanMoveTo(to); got != want {
					t.Errorf("CanMoveTo = %v, want %v", got, want)
				}
			})
		}
	}
	for _, s := range all {
		t.Run("unknown", func(t *testing.T) {
			if Status("queued").CanMoveTo(s) || s.CanMoveTo("") || s.CanMoveTo("done") {
				t.Errorf("a move from or to an unknown status is allowed with %s", s)
			}
		})
	}
}

func TestStatusFinal(t *testing.T) {
	tests := []struct {
		s    Status
		want bool
	}{
		{StatusCreated, false},
		{StatusPending, false},
		{StatusRunning, false},
		{StatusSucceeded, true},
		{StatusFailed, true},
		{StatusCancelled, true},
		{"", false},
		{"done", false},
	}
	for _, tt := range tests {
		t.Run(string(tt.s), func(t *testing.T) {
			if got := tt.s.Final(); got != tt.want {
				t.Errorf("Final = %v, want %v", got, tt.want)
			}
		})
	}
}
