package memstore_test

import (
	"testing"

	"github.com/inferd/inferd/internal/job/jobtest"
	"github.com/inferd/inferd/internal/job/memstore"
)

func TestCallbackLanes(t *testing.T) {
	jobtest.CallbackLanes(t, false, func(testing.TB) jobtest.Store { return memstore.New(memstore.Options{}) })
}
