# The consumers: process queues, offset stores, allocation, the push consumer.
list(APPEND client_sources
    pushconsumer.cpp
    consumer/processqueue.cpp
    consumer/offsetstore.cpp
    consumer/allocate.cpp
    consumer/pushconsumerimpl.cpp
    consumer/consumeservice.cpp)
list(APPEND client_sources consumer/litepullconsumer.cpp)
