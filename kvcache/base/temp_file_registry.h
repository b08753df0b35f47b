// The temporary files that are open right now (atomic_file.h registers each one), so that a
// signal that ends the process at once (SIGQUIT, a second Ctrl-C, a crash) can still remove them.
// The list is process-wide because a signal handler cannot be handed state; it is a fixed table
// of lock-free slots, so the removal is async-signal-safe (only atomic loads and unlink(2)).
#ifndef KVSIM_KVCACHE_BASE_TEMP_FILE_REGISTRY_H_
#define KVSIM_KVCACHE_BASE_TEMP_FILE_REGISTRY_H_

#include <string>

namespace kvsim {

// Remembers `path` until UnregisterTempFile(handle). Returns -1 when the table is full or the path
// too long (the file is then still removed on every ordinary path, only not from a signal).
int RegisterTempFile(const std::string& path);
// REQUIRES: `handle` came from RegisterTempFile (-1 is ignored).
void UnregisterTempFile(int handle);

// Unlinks every registered file. Async-signal-safe: for signal handlers (and their tests).
void RemoveRegisteredTempFiles();

// How many files are registered (tests).
int RegisteredTempFileCount();

}  // namespace kvsim

#endif  // KVSIM_KVCACHE_BASE_TEMP_FILE_REGISTRY_H_
