#pragma once

// Heap settings for the daemons' hot threads.

namespace qrocket {

/// Makes glibc's per-thread arenas grow in large steps (M_TOP_PAD 16 MiB) instead of 128 KiB
/// ones. Each step of a thread arena is an mprotect(), which needs the process's mmap lock for
/// writing; while the store's pre-faulting (MADV_POPULATE_*, ext4 page_mkwrite) holds it for
/// reading, an I/O thread growing its arena for a read buffer sleeps behind it, which tracing
/// showed as the I/O threads' commonest blocking wait (60-118 per 9 s bench run, none with the
/// setting). Untouched headroom is not resident, so RSS does not change. Call once, early in
/// main().
void reserveHeapHeadroom();

} // namespace qrocket
