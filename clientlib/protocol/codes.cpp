#include "clientlib/protocol/requestcode.h"
#include "clientlib/protocol/responsecode.h"

namespace qrocket::protocol {

namespace {
QByteArray label(const char *name, int code)
{
    return QByteArray(name ? name : "UNKNOWN") + '(' + QByteArray::number(code) + ')';
}
} // namespace

const char *requestCodeName(int code)
{
    switch (code) {
    case 10:
        return "SEND_MESSAGE";
    case 11:
        return "PULL_MESSAGE";
    case 12:
        return "QUERY_MESSAGE";
    case 13:
        return "QUERY_BROKER_OFFSET";
    case 14:
        return "QUERY_CONSUMER_OFFSET";
    case 15:
        return "UPDATE_CONSUMER_OFFSET";
    case 17:
        return "UPDATE_AND_CREATE_TOPIC";
    case 21:
        return "GET_ALL_TOPIC_CONFIG";
    case 22:
        return "GET_TOPIC_CONFIG_LIST";
    case 23:
        return "GET_TOPIC_NAME_LIST";
    case 25:
        return "UPDATE_BROKER_CONFIG";
    case 26:
        return "GET_BROKER_CONFIG";
    case 27:
        return "TRIGGER_DELETE_FILES";
    case 28:
        return "GET_BROKER_RUNTIME_INFO";
    case 29:
        return "SEARCH_OFFSET_BY_TIMESTAMP";
    case 30:
        return "GET_MAX_OFFSET";
    case 31:
        return "GET_MIN_OFFSET";
    case 32:
        return "GET_EARLIEST_MSG_STORETIME";
    case 33:
        return "VIEW_MESSAGE_BY_ID";
    case 34:
        return "HEART_BEAT";
    case 35:
        return "UNREGISTER_CLIENT";
    case 36:
        return "CONSUMER_SEND_MSG_BACK";
    case 37:
        return "END_TRANSACTION";
    case 38:
        return "GET_CONSUMER_LIST_BY_GROUP";
    case 39:
        return "CHECK_TRANSACTION_STATE";
    case 40:
        return "NOTIFY_CONSUMER_IDS_CHANGED";
    case 41:
        return "LOCK_BATCH_MQ";
    case 42:
        return "UNLOCK_BATCH_MQ";
    case 43:
        return "GET_ALL_CONSUMER_OFFSET";
    case 45:
        return "GET_ALL_DELAY_OFFSET";
    case 46:
        return "CHECK_CLIENT_CONFIG";
    case 50:
        return "UPDATE_AND_CREATE_ACL_CONFIG";
    case 51:
        return "DELETE_ACL_CONFIG";
    case 52:
        return "GET_BROKER_CLUSTER_ACL_INFO";
    case 53:
        return "UPDATE_GLOBAL_WHITE_ADDRS_CONFIG";
    case 100:
        return "PUT_KV_CONFIG";
    case 101:
        return "GET_KV_CONFIG";
    case 102:
        return "DELETE_KV_CONFIG";
    case 103:
        return "REGISTER_BROKER";
    case 104:
        return "UNREGISTER_BROKER";
    case 105:
        return "GET_ROUTEINFO_BY_TOPIC";
    case 106:
        return "GET_BROKER_CLUSTER_INFO";
    case 200:
        return "UPDATE_AND_CREATE_SUBSCRIPTIONGROUP";
    case 201:
        return "GET_ALL_SUBSCRIPTIONGROUP_CONFIG";
    case 202:
        return "GET_TOPIC_STATS_INFO";
    case 203:
        return "GET_CONSUMER_CONNECTION_LIST";
    case 204:
        return "GET_PRODUCER_CONNECTION_LIST";
    case 205:
        return "WIPE_WRITE_PERM_OF_BROKER";
    case 206:
        return "GET_ALL_TOPIC_LIST_FROM_NAMESERVER";
    case 207:
        return "DELETE_SUBSCRIPTIONGROUP";
    case 208:
        return "GET_CONSUME_STATS";
    case 209:
        return "SUSPEND_CONSUMER";
    case 210:
        return "RESUME_CONSUMER";
    case 211:
        return "RESET_CONSUMER_OFFSET_IN_CONSUMER";
    case 212:
        return "RESET_CONSUMER_OFFSET_IN_BROKER";
    case 213:
        return "ADJUST_CONSUMER_THREAD_POOL";
    case 214:
        return "WHO_CONSUME_THE_MESSAGE";
    case 215:
        return "DELETE_TOPIC_IN_BROKER";
    case 216:
        return "DELETE_TOPIC_IN_NAMESRV";
    case 217:
        return "GET_KV_CONFIG_BY_VALUE";
    case 219:
        return "GET_KVLIST_BY_NAMESPACE";
    case 220:
        return "RESET_CONSUMER_CLIENT_OFFSET";
    case 221:
        return "GET_CONSUMER_STATUS_FROM_CLIENT";
    case 222:
        return "INVOKE_BROKER_TO_RESET_OFFSET";
    case 223:
        return "INVOKE_BROKER_TO_GET_CONSUMER_STATUS";
    case 224:
        return "GET_TOPICS_BY_CLUSTER";
    case 300:
        return "QUERY_TOPIC_CONSUME_BY_WHO";
    case 301:
        return "REGISTER_FILTER_SERVER";
    case 302:
        return "REGISTER_MESSAGE_FILTER_CLASS";
    case 303:
        return "QUERY_CONSUME_TIME_SPAN";
    case 304:
        return "GET_SYSTEM_TOPIC_LIST_FROM_NS";
    case 305:
        return "GET_SYSTEM_TOPIC_LIST_FROM_BROKER";
    case 306:
        return "CLEAN_EXPIRED_CONSUMEQUEUE";
    case 307:
        return "GET_CONSUMER_RUNNING_INFO";
    case 308:
        return "QUERY_CORRECTION_OFFSET";
    case 309:
        return "CONSUME_MESSAGE_DIRECTLY";
    case 310:
        return "SEND_MESSAGE_V2";
    case 311:
        return "GET_UNIT_TOPIC_LIST";
    case 312:
        return "GET_HAS_UNIT_SUB_TOPIC_LIST";
    case 313:
        return "GET_HAS_UNIT_SUB_UNUNIT_TOPIC_LIST";
    case 314:
        return "CLONE_GROUP_OFFSET";
    case 315:
        return "VIEW_BROKER_STATS_DATA";
    case 316:
        return "CLEAN_UNUSED_TOPIC";
    case 317:
        return "GET_BROKER_CONSUME_STATS";
    case 318:
        return "UPDATE_NAMESRV_CONFIG";
    case 319:
        return "GET_NAMESRV_CONFIG";
    case 320:
        return "SEND_BATCH_MESSAGE";
    case 321:
        return "QUERY_CONSUME_QUEUE";
    case 322:
        return "QUERY_DATA_VERSION";
    case 323:
        return "RESUME_CHECK_HALF_MESSAGE";
    case 324:
        return "SEND_REPLY_MESSAGE";
    case 325:
        return "SEND_REPLY_MESSAGE_V2";
    case 326:
        return "PUSH_REPLY_MESSAGE_TO_CLIENT";
    case 327:
        return "ADD_WRITE_PERM_OF_BROKER";
    case 328:
        return "GET_ALL_PRODUCER_INFO";
    case 329:
        return "DELETE_EXPIRED_COMMITLOG";
    case 3001:
        return "AUTH_CREATE_USER";
    case 3002:
        return "AUTH_UPDATE_USER";
    case 3003:
        return "AUTH_DELETE_USER";
    case 3004:
        return "AUTH_GET_USER";
    case 3005:
        return "AUTH_LIST_USER";
    case 3006:
        return "AUTH_CREATE_ACL";
    case 3007:
        return "AUTH_UPDATE_ACL";
    case 3008:
        return "AUTH_DELETE_ACL";
    case 3009:
        return "AUTH_GET_ACL";
    case 3010:
        return "AUTH_LIST_ACL";
    default:
        return nullptr;
    }
}

const char *responseCodeName(int code)
{
    switch (code) {
    case 0:
        return "SUCCESS";
    case 1:
        return "SYSTEM_ERROR";
    case 2:
        return "SYSTEM_BUSY";
    case 3:
        return "REQUEST_CODE_NOT_SUPPORTED";
    case 4:
        return "TRANSACTION_FAILED";
    case 10:
        return "FLUSH_DISK_TIMEOUT";
    case 11:
        return "SLAVE_NOT_AVAILABLE";
    case 12:
        return "FLUSH_SLAVE_TIMEOUT";
    case 13:
        return "MESSAGE_ILLEGAL";
    case 14:
        return "SERVICE_NOT_AVAILABLE";
    case 15:
        return "VERSION_NOT_SUPPORTED";
    case 16:
        return "NO_PERMISSION";
    case 17:
        return "TOPIC_NOT_EXIST";
    case 18:
        return "TOPIC_EXIST_ALREADY";
    case 19:
        return "PULL_NOT_FOUND";
    case 20:
        return "PULL_RETRY_IMMEDIATELY";
    case 21:
        return "PULL_OFFSET_MOVED";
    case 22:
        return "QUERY_NOT_FOUND";
    case 23:
        return "SUBSCRIPTION_PARSE_FAILED";
    case 24:
        return "SUBSCRIPTION_NOT_EXIST";
    case 25:
        return "SUBSCRIPTION_NOT_LATEST";
    case 26:
        return "SUBSCRIPTION_GROUP_NOT_EXIST";
    case 27:
        return "FILTER_DATA_NOT_EXIST";
    case 28:
        return "FILTER_DATA_NOT_LATEST";
    case 29:
        return "INVALID_PARAMETER";
    case 200:
        return "TRANSACTION_SHOULD_COMMIT";
    case 201:
        return "TRANSACTION_SHOULD_ROLLBACK";
    case 202:
        return "TRANSACTION_STATE_UNKNOW";
    case 203:
        return "TRANSACTION_STATE_GROUP_WRONG";
    case 204:
        return "NO_BUYER_ID";
    case 205:
        return "NOT_IN_CURRENT_UNIT";
    case 206:
        return "CONSUMER_NOT_ONLINE";
    case 207:
        return "CONSUME_MSG_TIMEOUT";
    case 208:
        return "NO_MESSAGE";
    case 209:
        return "UPDATE_AND_CREATE_ACL_CONFIG_FAILED";
    case 210:
        return "DELETE_ACL_CONFIG_FAILED";
    case 211:
        return "UPDATE_GLOBAL_WHITE_ADDRS_CONFIG_FAILED";
    case 215:
        return "FLOW_CONTROL";
    default:
        return nullptr;
    }
}

QByteArray requestCodeLabel(int code)
{
    return label(requestCodeName(code), code);
}

QByteArray responseCodeLabel(int code)
{
    return label(responseCodeName(code), code);
}

} // namespace qrocket::protocol
