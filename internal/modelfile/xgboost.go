package modelfile

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/inferd/inferd/internal/backend/xgboost"
)

// ReadXGBoost reads an XGBoost model file (JSON or UBJSON) through the xgboost
// backend's own reader, so that model init declares exactly the tensors the server
// will: name is the file's path, for errors.
func ReadXGBoost(name string, data []byte) (*Model, error) {
	x, err := xgboost.Open(name, data)
	if err != nil {
		// Open's error starts with the path; the path goes first here too, then which
		// sentinel, then the backend's reason.
		why := err
		if inner := errors.Unwrap(err); inner != nil {
			why = inner
		}
		if errors.Is(err, xgboost.ErrUnsupportedModel) && xgboostLike(data) {
			return nil, fmt.Errorf("%s: %w: %w", name, ErrUnsupported, why)
		}
		return nil, fmt.Errorf("%s: %w: %w", name, ErrNotModel, why)
	}
	m := &Model{
		Backend:   "xgboost",
		Inputs:    x.Inputs(),
		Outputs:   x.Outputs(),
		Features:  x.Features(),
		Objective: x.Objective(),
	}
	for _, o := range m.Outputs {
		if o.Name == xgboost.ProbabilitiesName && len(o.Shape) == 2 {
			m.Classes = int(o.Shape[1])
		}
	}
	return m, nil
}

// xgboostLike: the file starts as an XGBoost model does (a JSON or UBJSON object, or
// the legacy binary format's "binf"), so the backend's refusal is of a model it does
// not serve rather than of a file that is no model at all.
func xgboostLike(data []byte) bool {
	b := bytes.TrimLeft(data, " \t\r\n")
	return bytes.HasPrefix(b, []byte("{")) || bytes.HasPrefix(b, []byte("binf"))
}
