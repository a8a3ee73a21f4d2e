# Broker server parts (owned by the broker-core engineer): controller, registration, send/pull/client/
# consumer-manage processors and long polling. Included by broker/CMakeLists.txt.
set(QROCKET_BROKER_SERVER_SOURCES
    brokercontroller.cpp
    brokerstartup.cpp
    config/brokerconfiguration.cpp
    namesrvregistrar.cpp
    longpolling/pullrequestholdservice.cpp
    filter/sqlfiltercache.cpp
    processors/sendproperties.cpp
    processors/sendmessageprocessor.cpp
    processors/pullmessageprocessor.cpp
    processors/clientmanageprocessor.cpp
    processors/consumermanageprocessor.cpp
    transaction/transactionalmessage.cpp
    transaction/transactionalmessageservice.cpp
    transaction/endtransactionprocessor.cpp
)

# The daemon, defined at the end of this directory, once qrocket_broker_lib exists.
function(qrocket_broker_define_daemon)
    if(TARGET qrocket_broker_lib)
        qrocket_add_executable(NAME qrocket-broker SOURCES main.cpp LIBS QRocket::broker_lib)
    endif()
endfunction()
cmake_language(DEFER CALL qrocket_broker_define_daemon)
