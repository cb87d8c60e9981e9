// Package jsonscantest is the oracle the tests of jsonscan and of its callers check a
// member named twice against: encoding/json's own tokenizer, with a set of names per
// object, rather than any scanner of jsonscan's.
package jsonscantest
