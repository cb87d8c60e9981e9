package xgboost_test

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/inferd/inferd/internal/backend/xgboost"
	"github.com/inferd/inferd/internal/tensor"
)

// FuzzOpen: no file, JSON or UBJSON or neither, makes Open or a Predict of what it
// opened panic or hang, and what opens answers each row with its declared outputs.
func FuzzOpen(f *testing.F) {
	for _, name := range []string{"gblinear.json", "gblinear_multi.ubj"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"learner":{"gradient_booster":{"name":"gbtree","model":{"trees":[],"tree_info":[]}},"learner_model_param":{"num_feature":"1","base_score":"[5E-1]"},"objective":{"name":"reg:squarederror"}}}`))
	// A stump, 3.x-shaped: x0 < 0.5 (NaN right) gives -1, else 1.
	f.Add([]byte(`{"version":[3,1,0],"learner":{"feature_names":["x0","x1"],"gradient_booster":{"name":"gbtree","model":{"gbtree_model_param":{"num_trees":"1","num_parallel_tree":"1"},"iteration_indptr":[0,1],"tree_info":[0],"trees":[{"tree_param":{"num_nodes":"3","num_feature":"2","size_leaf_vector":"1"},"left_children":[1,-1,-1],"right_children":[2,-1,-1],"split_indices":[0,0,0],"split_conditions":[5E-1,-1E0,1E0],"default_left":[0,0,0],"split_type":[0,0,0],"categories":[],"categories_nodes":[],"categories_segments":[],"categories_sizes":[]}]}},"learner_model_param":{"num_feature":"2","num_class":"0","num_target":"1","base_score":"[5E-1]"},"objective":{"name":"binary:logistic"}}}`))
	f.Add([]byte("{L\x00\x00\x00\x00\x00\x00\x00\x01a[$d#i\x02\x3f\x80\x00\x00\x40\x00\x00\x00}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := xgboost.Open("fuzz.json", data)
		if err != nil {
			return
		}
		n := int(m.Inputs()[0].Shape[1])
		if n > 1<<12 {
			return
		}
		nan, zero := make([]float32, n), make([]float32, n)
		for i := range nan {
			nan[i] = float32(math.NaN())
		}
		out, err := m.Predict(context.Background(), []any{tensor.NewFloat32([]int64{int64(n)}, nan), tensor.NewFloat32([]int64{int64(n)}, zero)})
		if err != nil {
			t.Fatal(err)
		}
		for _, row := range out {
			for _, o := range m.ItemOutputs() {
				got := row.(tensor.Map)[o.Name]
				if got == nil || int64(got.Len()) != tensor.Size(o.Shape) {
					t.Fatalf("output %s: %v, declared %v", o.Name, got, o.Shape)
				}
			}
		}
	})
}
