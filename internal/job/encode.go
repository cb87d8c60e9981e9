package job

import (
	"bytes"
	"encoding/json"
)

// EncodeJSON is json.Marshal without HTML escaping. Records hold clients' JSON (the
// input, the echoed result), which json.Marshal would store with every <, > and & as a
// six-byte \u003c escape: a 1 MB echo of '<' took 6 MB of Redis for its result alone.
func EncodeJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
