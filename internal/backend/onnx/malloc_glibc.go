//go:build linux && cgo

package onnx

/*
#include <malloc.h>

// inferd_tune_malloc fixes glibc's mmap threshold, which is otherwise dynamic: each
// large block freed raises it (up to 32 MiB), so that the next session's weights and
// arenas come from the heap, where freeing a replaced session leaves holes glibc never
// gives back. Fixed, every block of 128 KiB and more is its own mapping, returned to
// the system when ONNX Runtime frees it; setting it also stops the adjustment.
static void inferd_tune_malloc(void) {
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);
	mallopt(M_TRIM_THRESHOLD, 128 * 1024);
}
*/
import "C"

// tuneMalloc makes the memory of a pipeline ONNX Runtime frees go back to the
// system: without it, 100 reloads of models/digits grew the process from 143 MB to
// 544 MB (and it stayed there), with it to 142 MB. Called once, before the library
// allocates anything.
func tuneMalloc() { C.inferd_tune_malloc() }
