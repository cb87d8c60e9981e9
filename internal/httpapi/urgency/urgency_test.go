package urgency

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/inferd/inferd/gen/api"
	"github.com/inferd/inferd/internal/httpapi/validator"
	"github.com/inferd/inferd/internal/problem"
)

func TestJobParse(t *testing.T) {
	high, bad := api.JobPriority("high"), api.JobPriority("urgent")
	when := time.Date(2026, 11, 22, 10, 5, 0, 0, time.UTC)
	p, d, err := Job{Priority: &high, Deadline: &when}.Parse()
	if err != nil || p != "high" || d == nil || !d.Equal(when) || d == &when {
		t.Errorf("Parse = %q, %v, %v; want high, a copy of %v", p, d, err, when)
	}
	var pe *problem.Error
	if _, _, err := (Job{Priority: &bad}).Parse(); !errors.As(err, &pe) || pe.Kind != problem.Invalid {
		t.Errorf("an unknown priority: %v", err)
	}
	in := &validator.Input{Deadline: "tomorrow"}
	if _, _, err := (Job{Deadline: Deadline(in)}).Parse(); err == nil {
		t.Error("a malformed deadline was taken")
	}
	if Priority(&validator.Input{}) != nil || Deadline(&validator.Input{}) != nil {
		t.Error("an absent priority or deadline is not nil")
	}
}

func TestRequestTimeout(t *testing.T) {
	for in, want := range map[string]time.Duration{"2.5": 2500 * time.Millisecond, "0.000000001": 1, "3600": time.Hour} {
		if got, err := requestTimeout(in); err != nil || got != want {
			t.Errorf("%q: %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "0", "-1", "1e3", "3600.000000001", "10000", "1.", ".5", "1.0000000001"} {
		if _, err := requestTimeout(in); err == nil {
			t.Errorf("%q was taken", in)
		}
	}
}

func TestTimedOut(t *testing.T) {
	header := "0.000000001"
	ctx, cancel, err := ClientTimeout(context.Background(), &header)
	if err != nil {
		t.Fatal(err)
	}
	defer cancel()
	<-ctx.Done()
	var pe *problem.Error
	if err := TimedOut(ctx, &header, ctx.Err()); !errors.As(err, &pe) || pe.Code != problem.CodeCancelled {
		t.Errorf("TimedOut = %v; want request_cancelled", err)
	}
	other := errors.New("boom")
	if err := TimedOut(context.Background(), &header, other); err != other {
		t.Errorf("an error without a timeout was reworded: %v", err)
	}
}
