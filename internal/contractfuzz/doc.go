// Package contractfuzz generates requests for every operation of openapi.yaml from its
// schemas and examples, valid ones and every kind of client mistake, for the fuzz test
// that sends them to the real inferd binary and checks each answer against the
// contract: never a 5xx for a client mistake, never a response outside openapi.yaml.
package contractfuzz
