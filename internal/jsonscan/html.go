package jsonscan

// UnescapeHTML turns \u003c, \u003e and \u0026 in JSON text back into the characters
// they stand for (encoding/json's HTML escaping, which its Marshal cannot be told to
// leave out); every other escape, \\ included, is copied whole, so a backslash the
// text holds is never read as the start of one.
func UnescapeHTML(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c != '\\' || i+1 >= len(b) {
			out = append(out, c)
			continue
		}
		if b[i+1] == 'u' && i+5 < len(b) {
			switch string(b[i+2 : i+6]) {
			case "003c":
				out = append(out, '<')
				i += 5
				continue
			case "003e":
				out = append(out, '>')
				i += 5
				continue
			case "0026":
				out = append(out, '&')
				i += 5
				continue
			}
		}
		out = append(out, c, b[i+1])
		i++
	}
	return out
}
