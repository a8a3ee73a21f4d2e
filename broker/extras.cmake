# The broker-extras sources (delay schedule, send-back, query/view, admin processors), added to
# qrocket_broker_lib by broker/CMakeLists.txt. They need the store: link it once the library exists.
set(QROCKET_BROKER_EXTRAS_SOURCES
    schedule/scheduletransform.cpp
    schedule/schedulemessageservice.cpp
    processors/sendbackprocessor.cpp
    processors/queryprocessor.cpp
    processors/adminprocessor.cpp
    processors/admintopic.cpp
    processors/adminruntime.cpp
    processors/adminconsumer.cpp
    processors/adminconfig.cpp
    processors/adminforward.cpp
    processors/adminmore.cpp
    processors/adminstats.cpp
    processors/lockprocessor.cpp
    processors/replymessageprocessor.cpp
    processors/extrasregistry.cpp
)

# Deferred to the end of the top-level directory, when every module's target exists.
function(qrocket_broker_extras_link)
    if(TARGET qrocket_broker_lib AND TARGET qrocket_storage AND TARGET qrocket_remoting)
        target_link_libraries(qrocket_broker_lib PUBLIC QRocket::storage QRocket::remoting)
    endif()
endfunction()
cmake_language(DEFER DIRECTORY ${PROJECT_SOURCE_DIR} CALL qrocket_broker_extras_link)
