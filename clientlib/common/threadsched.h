#pragma once

// Scheduling hints for the daemons' threads, set by each thread on itself.
//
// On a machine with fewer cores than busy threads (the 2-core machines QRocket is measured on),
// a send's latency is mostly time its I/O thread spends runnable but not running. Three hints tell
// the kernel which threads that matters for:
// - background work (dispatch to the consume queues, cleanup, file allocation) runs as
//   SCHED_BATCH: same CPU share, but its wake-ups do not preempt a running thread;
// - work nobody waits for (pre-faulting, the async flush, the consume-queue flush) runs as
//   SCHED_IDLE: a thread that wakes on its CPU preempts it at once, whatever its own lag
//   (SCHED_BATCH work that has slept long enough keeps the CPU for its whole slice, up to the
//   next tick: 4 ms at HZ=250). It still gets every idle cycle, and a little under full load;
//   what it does not do in time the writer or the kernel's write-back does;
// - the remoting I/O threads ask for a short time slice (EEVDF's per-task slice, Linux 6.12+),
//   which gives them an earlier deadline, so they run soon after they wake.
// All are plain user rights (no capability needed). Where the kernel refuses one (older kernels
// have no per-task slice) the thread keeps the default and nothing else changes.
// QROCKET_THREAD_HINTS=off turns them all off (to compare).

namespace qrocket {

/// The calling thread becomes SCHED_BATCH. Returns false when not applied.
bool markCurrentThreadBackground();

/// The calling thread becomes SCHED_IDLE: it runs only on CPU time nobody else wants. Returns
/// false when not applied.
bool markCurrentThreadIdle();

/// The calling thread asks for a time slice of `sliceMicros` (100..100000). Returns false when
/// not applied.
bool markCurrentThreadLatencySensitive(int sliceMicros = 100);

} // namespace qrocket
