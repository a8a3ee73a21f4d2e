# The admin API (RocketMQ's DefaultMQAdminExt), appended to qrocket_client's sources.
list(APPEND client_sources
    admin/admin.cpp
    admin/admincall.cpp
    admin/adminops.cpp
    admin/adminqueries.cpp
    admin/admintools.cpp)
