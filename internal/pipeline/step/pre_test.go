package step

import (
	"context"
	"testing"

	"github.com/inferd/inferd/internal/pipeline"
)

var (
	iris    = pipeline.Tensor{Name: "input", DType: "float32", Shape: []int64{4}}
	irisIDs = []string{"sepal_length", "sepal_width", "petal_length", "petal_width"}
	ints    = pipeline.Tensor{Name: "ids", DType: "int64", Shape: []int64{3}}
	grid    = pipeline.Tensor{Name: "grid", DType: "float64", Shape: []int64{2, 2}}
)

func TestToTensor(t *testing.T) {
	tests := []struct {
		name     string
		batch    bool // the items came as a batch (more than one item always does)
		p        ToTensorParams
		in       pipeline.Tensor
		items    []string
		want     string
		wantCode string
		wantErr  string
	}{
		{name: "array", p: ToTensorParams{}, in: iris, items: []string{`[5.1,3.5,1.4,0.2]`}, want: `[[5.1,3.5,1.4,0.2]]`},
		{name: "batch", in: iris, items: []string{`[1,2,3,4]`, `[5,6,7,8]`}, want: `[[1,2,3,4],[5,6,7,8]]`},
		{name: "field", p: ToTensorParams{Field: "features"}, in: iris, items: []string{`{"features":[1,2,3,4]}`}, want: `[[1,2,3,4]]`},
		{name: "named features", p: ToTensorParams{Features: irisIDs}, in: iris,
			items: []string{`{"petal_width":0.2,"sepal_length":5.1,"petal_length":1.4,"sepal_width":3.5}`}, want: `[[5.1,3.5,1.4,0.2]]`},
		{name: "named features as array", p: ToTensorParams{Features: irisIDs}, in: iris, items: []string{`[5.1,3.5,1.4,0.2]`}, want: `[[5.1,3.5,1.4,0.2]]`},
		{name: "float32 precision", in: iris, items: []string{`[0.1,1e-7,3.4e38,-0]`}, want: `[[0.1,1e-7,3.4e+38,-0]]`},
		{name: "int64 beyond 2^53", in: ints, items: []string{`[9007199254740993,-1,1e3]`}, want: `[[9007199254740993,-1,1000]]`},
		{name: "nested", in: grid, items: []string{`[[1,2],[3,4]]`}, want: `[[[1,2],[3,4]]]`},
		{name: "flat for nested shape", in: grid, items: []string{`[1,2,3,4]`}, want: `[[[1,2],[3,4]]]`},
		{name: "scalar", p: ToTensorParams{Shape: []int64{}}, in: pipeline.Tensor{Name: "x", DType: "float64", Shape: []int64{}}, items: []string{`2.5`}, want: `[2.5]`},

		{name: "too few", in: iris, items: []string{`[1,2,3]`}, wantCode: "invalid_input", wantErr: "data: expected 4 numbers, got 3"},
		{name: "too few in field", p: ToTensorParams{Field: "features"}, in: iris, items: []string{`{"features":[1,2,3]}`},
			wantCode: "invalid_input", wantErr: "data.features: expected 4 numbers, got 3"},
		{name: "too many in a batch", in: iris, items: []string{`[1,2,3,4]`, `[1,2,3,4,5]`}, wantCode: "invalid_input", wantErr: "items[1]: expected 4 numbers, got 5"},
		{name: "batch of one", batch: true, in: iris, items: []string{`[1]`}, wantCode: "invalid_input", wantErr: "items[0]: expected 4 numbers, got 1"},
		{name: "string element", in: iris, items: []string{`[1,"2",3,4]`}, wantCode: "invalid_input", wantErr: "data[1]: expected a number, got a string"},
		{name: "null element", in: iris, items: []string{`[1,2,null,4]`}, wantCode: "invalid_input", wantErr: "data[2]: expected a number, got null"},
		{name: "not an array", in: iris, items: []string{`"hello"`}, wantCode: "invalid_input", wantErr: "data: expected an array of 4 numbers, got a string"},
		{name: "object without features", in: iris, items: []string{`{"a":1}`}, wantCode: "invalid_input", wantErr: "data: expected an array of 4 numbers, got an object"},
		{name: "missing field", p: ToTensorParams{Field: "features"}, in: iris, items: []string{`{"feature":[1,2,3,4]}`},
			wantCode: "invalid_input", wantErr: `data: missing the field "features"`},
		{name: "field of a non-object", p: ToTensorParams{Field: "features"}, in: iris, items: []string{`[1,2,3,4]`},
			wantCode: "invalid_input", wantErr: `data: expected an object with the field "features", got an array`},
		{name: "missing feature", p: ToTensorParams{Features: irisIDs}, in: iris, items: []string{`{"sepal_length":5.1,"sepal_width":3.5,"petal_length":1.4}`},
			wantCode: "invalid_input", wantErr: `data: missing the feature "petal_width" (features: sepal_length, sepal_width, petal_length, petal_width)`},
		{name: "unknown feature", p: ToTensorParams{Features: irisIDs}, in: iris, items: []string{`{"sepal_length":5.1,"sepal_width":3.5,"petal_length":1.4,"petal_width":1,"petal_colour":2,"age":3}`},
			wantCode: "invalid_input", wantErr: `data: unknown feature "age" (features: sepal_length, sepal_width, petal_length, petal_width)`},
		{name: "feature not a number", p: ToTensorParams{Features: irisIDs}, in: iris, items: []string{`{"sepal_length":"5.1","sepal_width":3.5,"petal_length":1.4,"petal_width":1}`},
			wantCode: "invalid_input", wantErr: `data.sepal_length: expected a number, got a string`},
		{name: "wrong type with features", p: ToTensorParams{Features: irisIDs}, in: iris, items: []string{`true`},
			wantCode: "invalid_input", wantErr: `data: expected 4 numbers or an object of features (sepal_length, sepal_width, petal_length, petal_width), got a boolean`},
		{name: "float32 overflow", in: iris, items: []string{`[1,2,3,1e39]`}, wantCode: "invalid_input", wantErr: "data[3]: 1e39 is out of range for float32"},
		{name: "float64 overflow", in: grid, items: []string{`[[1,2],[3,1e400]]`}, wantCode: "invalid_input", wantErr: "data[1][1]: 1e400 is out of range for float64"},
		{name: "fraction for int", in: ints, items: []string{`[1,2.5,3]`}, wantCode: "invalid_input", wantErr: "data[1]: expected a whole number for int64, got 2.5"},
		{name: "int32 overflow", p: ToTensorParams{DType: "int32"}, in: pipeline.Tensor{Name: "x", DType: "int32", Shape: []int64{1}}, items: []string{`[2147483648]`},
			wantCode: "invalid_input", wantErr: "data[0]: 2147483648 is out of range for int32"},
		{name: "nested wrong length", in: grid, items: []string{`[[1,2],[3]]`}, wantCode: "invalid_input", wantErr: "data[1]: expected 2 numbers, got 1"},
		{name: "nested wrong outer", in: grid, items: []string{`[[1,2]]`}, wantCode: "invalid_input", wantErr: "data: expected 2 arrays of shape [2], got 1"},
		{name: "scalar got array", p: ToTensorParams{Shape: []int64{}}, in: pipeline.Tensor{Name: "x", DType: "float64", Shape: []int64{}}, items: []string{`[1]`},
			wantCode: "invalid_input", wantErr: "data: expected a number, got an array"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := tt.p
			got, err := runPre(t, tt.batch, []Spec{{Name: "to_tensor", Params: &p}}, tt.in, tt.items...)
			check(t, got, err, tt.want, tt.wantCode, tt.wantErr)
		})
	}
}

func TestStandardize(t *testing.T) {
	toT := Spec{Name: "to_tensor"}
	tests := []struct {
		name  string
		p     StandardizeParams
		in    pipeline.Tensor
		items []string
		want  string
	}{
		{name: "per feature", p: StandardizeParams{Mean: []float64{1, 2, 3, 4}, Std: []float64{1, 2, 4, 0.5}}, in: iris,
			items: []string{`[2,2,5,3]`, `[1,0,3,4]`}, want: `[[1,0,0.5,-2],[0,-1,0,0]]`},
		{name: "float32 result", p: StandardizeParams{Mean: []float64{0, 0, 0, 0}, Std: []float64{3, 3, 3, 3}}, in: iris,
			items: []string{`[1,1,1,1]`}, want: `[[0.33333334,0.33333334,0.33333334,0.33333334]]`},
		{name: "last dimension", p: StandardizeParams{Mean: []float64{1, 2}, Std: []float64{1, 1}}, in: grid,
			items: []string{`[[1,2],[3,4]]`}, want: `[[[0,0],[2,2]]]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := tt.p
			got, err := runPre(t, false, []Spec{toT, {Name: "standardize", Params: &p}}, tt.in, tt.items...)
			check(t, got, err, tt.want, "", "")
		})
	}
	t.Run("bad input stops at to_tensor", func(t *testing.T) {
		p := StandardizeParams{Mean: []float64{0, 0, 0, 0}, Std: []float64{1, 1, 1, 1}}
		_, err := runPre(t, false, []Spec{toT, {Name: "standardize", Params: &p}}, iris, `[1,2,3]`)
		check(t, "", err, "", "invalid_input", "data: expected 4 numbers, got 3")
	})
	t.Run("not a tensor", func(t *testing.T) {
		s, _, err := standardizeDef.build(&StandardizeParams{Mean: []float64{0}, Std: []float64{1}}, Sig{Kind: KindTensor, DType: "float32", Shape: []int64{1}}, "preprocess[1].standardize")
		if err != nil {
			t.Fatal(err)
		}
		_, err = s.Apply(context.Background(), []any{"oops"})
		check(t, "", err, "", "execution_error", "execution error: preprocess[1].standardize: expected a tensor, got string")
	})
}

func TestCast(t *testing.T) {
	toT := func(p ToTensorParams) Spec { return Spec{Name: "to_tensor", Params: &p} }
	cast := func(d string) Spec { return Spec{Name: "cast", Params: &CastParams{DType: d}} }
	f64in := pipeline.Tensor{Name: "x", DType: "float64", Shape: []int64{3}}
	i32in := pipeline.Tensor{Name: "x", DType: "int32", Shape: []int64{3}}
	f32in := pipeline.Tensor{Name: "x", DType: "float32", Shape: []int64{3}}
	i64in := pipeline.Tensor{Name: "x", DType: "int64", Shape: []int64{3}}
	tests := []struct {
		name     string
		specs    []Spec
		in       pipeline.Tensor
		items    []string
		want     string
		wantCode string
		wantErr  string
	}{
		{name: "float64 to float32", specs: []Spec{toT(ToTensorParams{DType: "float64"}), cast("float32")}, in: f32in,
			items: []string{`[0.1,2,-3.5]`}, want: `[[0.1,2,-3.5]]`},
		{name: "float to int", specs: []Spec{toT(ToTensorParams{DType: "float64"}), cast("int32")}, in: i32in,
			items: []string{`[1,2e3,-3]`}, want: `[[1,2000,-3]]`},
		{name: "int to float", specs: []Spec{toT(ToTensorParams{DType: "int64"}), cast("float64")}, in: f64in,
			items: []string{`[1,2,3]`}, want: `[[1,2,3]]`},
		{name: "int64 to int32", specs: []Spec{toT(ToTensorParams{DType: "int64"}), cast("int32")}, in: i32in,
			items: []string{`[1,-2147483648,3]`}, want: `[[1,-2147483648,3]]`},
		{name: "same dtype", specs: []Spec{toT(ToTensorParams{}), cast("int64")}, in: i64in,
			items: []string{`[1,2,3]`}, want: `[[1,2,3]]`},

		{name: "fraction to int", specs: []Spec{toT(ToTensorParams{DType: "float64"}), cast("int32")}, in: i32in,
			items: []string{`[1,2,3]`, `[1,2.5,3]`}, wantCode: "invalid_input", wantErr: "items[1][1]: 2.5 is not a whole number, so it cannot be cast to int32"},
		{name: "int32 overflow from int64", specs: []Spec{toT(ToTensorParams{DType: "int64"}), cast("int32")}, in: i32in,
			items: []string{`[1,2,3000000000]`}, wantCode: "invalid_input", wantErr: "data[2]: 3000000000 is out of range for int32"},
		{name: "int32 overflow from float", specs: []Spec{toT(ToTensorParams{DType: "float64"}), cast("int32")}, in: i32in,
			items: []string{`[1e10,2,3]`}, wantCode: "invalid_input", wantErr: "data[0]: 1e+10 is out of range for int32"},
		{name: "float32 overflow", specs: []Spec{toT(ToTensorParams{DType: "float64"}), cast("float32")}, in: f32in,
			items: []string{`[1,1e300,3]`}, wantCode: "invalid_input", wantErr: "data[1]: 1e+300 is out of range for float32"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := runPre(t, false, tt.specs, tt.in, tt.items...)
			check(t, got, err, tt.want, tt.wantCode, tt.wantErr)
		})
	}
}
