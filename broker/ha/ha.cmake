# Master/slave replication (RocketMQ's HA stream): included by broker/CMakeLists.txt.
set(QROCKET_BROKER_HA_SOURCES
    ha/hasocket.cpp
    ha/haservice.cpp
    ha/haclient.cpp
    ha/slavesynchronize.cpp
)
