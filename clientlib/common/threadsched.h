#pragma once

// Scheduling hints for the daemons' threads, set by each thread on itself.
//
// On a machine with fewer cores than busy threads (the 2-core machines QRocket is measured on),
// a send's latency is mostly time its I/O thread spends runnable but not running. Two hints tell
// the kernel which threads that matters for:
// - background work (pre-faulting, dispatch to the consume queues, async flush, cleanup) runs as
//   SCHED_BATCH: same CPU share, but its wake-ups do not preempt a running thread;
// - the remoting I/O threads ask for a short time slice (EEVDF's per-task slice, Linux 6.12+),
//   which gives them an earlier deadline, so they run soon after they wake.
// Both are plain user rights (no capability needed). Where the kernel refuses one (older kernels
// have no per-task slice) the thread keeps the default and nothing else changes.
// QROCKET_THREAD_HINTS=off turns both off (to compare).

namespace qrocket {

/// The calling thread becomes SCHED_BATCH. Returns false when not applied.
bool markCurrentThreadBackground();

/// The calling thread asks for a time slice of `sliceMicros` (100..100000). Returns false when
/// not applied.
bool markCurrentThreadLatencySensitive(int sliceMicros = 100);

} // namespace qrocket
