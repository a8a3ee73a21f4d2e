#pragma once

// ProcessorTable: request code -> (processor, executor), plus a default processor, and the
// RocketMQ reply rules applied when a request is dispatched (protocol.md §1.3):
//   - the response echoes the request's opaque, has the response flag and the request's serialize
//     type (the Responder handed to the processor fixes these up, whatever the processor set);
//   - oneway requests are never answered;
//   - no processor for the code and no default -> 3 " request type <code> not supported";
//   - processor->rejectRequest() -> 2 "[REJECTREQUEST]system busy, start flow control for a while";
//   - executor queue full -> 2 "[OVERLOAD]system busy, start flow control for a while";
//   - processRequest throws -> 1 with the exception text.
// Thread-safe: registrations may happen at any time from any thread (a shared lock is taken per
// dispatch).

#include "clientlib/protocol/responsecode.h"
#include "clientlib/remoting/executor.h"
#include "clientlib/remoting/requestprocessor.h"

#include <shared_mutex>
#include <unordered_map>

namespace qrocket::remoting {

using protocol::ResponseCode;

class ProcessorTable
{
public:
    struct Entry
    {
        RequestProcessorPtr processor;
        ExecutorPtr executor; // null = inline on the I/O thread
        RequestGuardPtr guard; // the table's guard, when one is set
    };

    void registerProcessor(
        int requestCode, RequestProcessorPtr processor, ExecutorPtr executor = {});
    void setDefaultProcessor(RequestProcessorPtr processor, ExecutorPtr executor = {});
    /// Every request dispatched after this call is checked by `guard` (null: none) before its
    /// processor runs; a refused one is answered with the guard's code and remark.
    void setRequestGuard(RequestGuardPtr guard);
    /// The entry for `requestCode`, else the default entry (processor may be null).
    Entry lookup(int requestCode) const;

    /// Applies the reply rules above and runs the processor on its executor. Called on the
    /// connection's I/O thread.
    void dispatch(const ChannelPtr &channel, RemotingCommand request) const;

    /// A Responder for `request` on `channel` (a no-op for oneway requests).
    static Responder makeResponder(const ChannelPtr &channel, const RemotingCommand &request);

private:
    mutable std::shared_mutex m_mutex;
    std::unordered_map<int, Entry> m_entries; // guarded by m_mutex
    Entry m_default; // guarded by m_mutex
    RequestGuardPtr m_guard; // guarded by m_mutex
};

} // namespace qrocket::remoting
