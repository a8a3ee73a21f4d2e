#pragma once

// RocketMQ 5's request and response codes for POP consumption and server-side assignment
// (rocketmq-all-5.3.3 RequestCode / ResponseCode). Kept beside requestcode.h / responsecode.h
// (which carry 4.9's tables) so that adding them did not touch every file including those;
// requestCodeName() knows these names too.

namespace qrocket::protocol::popcode {

// Request codes.
inline constexpr int GetTopicConfig = 351;
inline constexpr int GetSubscriptionGroupConfig = 352;
inline constexpr int QueryAssignment = 400;
inline constexpr int SetMessageRequestMode = 401;
inline constexpr int GetAllMessageRequestMode = 402;
inline constexpr int PopMessage = 200050;
inline constexpr int AckMessage = 200051;
inline constexpr int PeekMessage = 200052;
inline constexpr int ChangeMessageInvisibleTime = 200053;
inline constexpr int Notification = 200054;
inline constexpr int PollingInfo = 200055;
inline constexpr int PopRollback = 200056;
inline constexpr int BatchAckMessage = 200151;

// Response codes (RocketMQ 5 reuses 4.9's ACL failure codes 209/210 for these).
inline constexpr int PollingFull = 209;
inline constexpr int PollingTimeout = 210;

} // namespace qrocket::protocol::popcode
