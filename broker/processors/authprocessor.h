#pragma once

// AuthProcessor: RocketMQ 5's ACL 2.0 admin requests on the broker (protocol.md §9),
// AUTH_CREATE_USER (3001) ... AUTH_LIST_ACL (3010), over the broker's AuthStore, answered as
// RocketMQ 5.3's AdminBrokerProcessor answers them:
//   3001/3002 username header + UserInfo body; 3003 username; 3004 username → UserInfo or no
//   body; 3005 filter (a substring of the name) → [UserInfo] or no body; 3006/3007 subject +
//   AclInfo body (both merge into the subject's ACL); 3008 subject, policyType, resource;
//   3009 subject → AclInfo or no body; 3010 subjectFilter, resourceFilter → [AclInfo].
//   A blank username is 29 INVALID_PARAMETER "The username is blank"; a refused change is
//   16 NO_PERMISSION with RocketMQ's message ("The user is existed", "The subject of User:x is
//   not exist.", ...); a change that cannot be persisted is 1 SYSTEM_ERROR "An system error
//   occurred, please try again later.".
// Not like RocketMQ 5.3, on purpose: no password is ever answered (UserInfo without it; RocketMQ
// returns it to mqadmin getUser/listUser); and with aclEnable=false every code is refused with 16
// (RocketMQ would let anyone create a super user then, ready for the day ACL is turned on).
// Only super users (or plain_acl.yml admins) reach this processor: the AclGuard refuses the codes
// to everyone else. Changes are logged with the user or subject and the peer, never a password.
//
// Thread-safety: stateless but for the store (thread-safe); any executor thread. `store` (null
// when aclEnable=false) must outlive the processor.

#include "clientlib/remoting/requestprocessor.h"

#include <vector>

namespace qrocket::broker {

class AuthStore;

class AuthProcessor final : public remoting::RequestProcessor
{
public:
    explicit AuthProcessor(AuthStore *store) : m_store(store) { }

    static std::vector<int> requestCodes();

    void processRequest(const remoting::ChannelPtr &channel, remoting::RemotingCommand request,
        remoting::Responder respond) override;

    /// The response to one AUTH_* request; `peer` names the requester in log lines.
    remoting::RemotingCommand handle(
        const remoting::RemotingCommand &request, const QByteArray &peer = {});

private:
    AuthStore *m_store;
};

} // namespace qrocket::broker
