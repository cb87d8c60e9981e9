package jsonscan

// Plain reports whether s is written by encoding/json as itself between quotes, and
// reads back as itself: ASCII with no control character, quote or backslash. Such a
// string is copied into and out of JSON text without encoding or decoding.
func Plain[T ~[]byte | ~string](s T) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x80 {
			return false
		}
	}
	return true
}
