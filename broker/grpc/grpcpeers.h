#pragma once

// GrpcPeers: the real address of a client whose connection reached gRPC through the broker's
// own listener (tls.server.mode=permissive, grpcsniffer.h). gRPC names such a caller by what it
// was handed: "fd:12" for a plain connection given by descriptor, "ipv4:127.0.0.1:40123" for a
// TLS connection relayed to the internal loopback listener. The sniffer records each one here
// before the connection carries a byte, and resolve() gives handlers (the client's address,
// the ACL's whitelists) the address the client really connects from.

#include <map>
#include <mutex>
#include <string>

namespace qrocket::broker::v2 {

class GrpcPeers
{
public:
    /// `key` (gRPC's name for the connection) is `peer` ("ipv4:a.b.c.d:port", "ipv6:[..]:port").
    void set(const std::string &key, std::string peer)
    {
        std::lock_guard lock(m_mutex);
        m_peers[key] = std::move(peer);
        m_used = true;
    }
    void erase(const std::string &key)
    {
        std::lock_guard lock(m_mutex);
        m_peers.erase(key);
    }
    /// The real peer behind gRPC's `peer` (itself when it is not one of the sniffer's).
    std::string resolve(const std::string &peer) const
    {
        std::lock_guard lock(m_mutex);
        if (!m_used)
            return peer;
        const auto it = m_peers.find(peer);
        return it == m_peers.end() ? peer : it->second;
    }

private:
    mutable std::mutex m_mutex;
    std::map<std::string, std::string> m_peers; // guarded by m_mutex
    bool m_used = false; // guarded by m_mutex: the sniffer ever recorded one
};

} // namespace qrocket::broker::v2
