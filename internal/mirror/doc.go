// Package mirror keeps a local, verified copy of a model repository read through a
// store.Store (a bucket, or a directory), laid out as internal/repository reads it, so
// that the repository's own code loads models from it unchanged.
//
// A poll (Sync) is one listing of the whole repository. Versions whose objects (key,
// ETag, size) are those of the copy held cost nothing more. Any other version is taken
// only when it is whole: with a SHA256SUMS file, when every file it lists is there and
// matches its digest; without one, when its listing has not changed since the previous
// poll and it holds a model.yaml. A version that is not whole is pending; one that
// cannot be whole (a digest that does not match, a file listed but missing) is refused
// with the reason, and the copy held before, if any, stays. Holding still for a poll
// is evidence, not proof: an upload that stalls for a whole poll interval is taken as
// it stands, which SHA256SUMS rules out.
//
// Files are kept in a content-addressed cache (CacheDir/sha256/<digest>), so a file
// shared by versions is downloaded once and a restart with the store down serves what
// the last good poll took: the copy's state (its versions and their digests) is kept in
// CacheDir too. A file whose digest SHA256SUMS gives and the cache holds is not read
// from the store at all: what the copy serves is the content the digest names, never
// other bytes, whatever the store's object holds. A version's directory is made of hard links into the cache, built
// aside and swapped into place in one rename, so a reader never sees it half-built.
//
// The files follow the concerns: mirror.go (Options, New, Sync), settle.go (the first
// sync of a process), poll.go (one poll's decisions), sums.go (SHA256SUMS), listing.go
// (objects grouped into versions), fetch.go (downloads: streamed, retried, resumed),
// cache.go (the content-addressed files and their eviction), local.go (the copy's
// directories), state.go (the state kept across restarts) and result.go (what a poll
// reports).
package mirror
