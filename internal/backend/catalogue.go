package backend

// Catalogue is the runtimes a server has, in the order error messages list them.
type Catalogue []Backend

// Lookup returns the backend of that name.
func (c Catalogue) Lookup(name string) (Backend, bool) {
	for _, b := range c {
		if b.Name() == name {
			return b, true
		}
	}
	return nil, false
}

// Names lists the backends' names in order.
func (c Catalogue) Names() []string {
	names := make([]string, len(c))
	for i, b := range c {
		names[i] = b.Name()
	}
	return names
}
