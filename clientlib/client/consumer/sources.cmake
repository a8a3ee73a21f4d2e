# The consumers: process queues, offset stores, allocation, the shared rebalance and pull wrapper,
# the push consumer with its consume services, the lite-pull consumer.
list(APPEND client_sources
    consumer/processqueue.cpp
    consumer/offsetstore.cpp
    consumer/allocate.cpp
    consumer/rebalanceimpl.cpp
    consumer/pullapiwrapper.cpp
    consumer/pushconsumer.cpp
    consumer/pushconsumerimpl.cpp
    consumer/pushrebalance.cpp
    consumer/consumeservice.cpp
    consumer/concurrentconsumeservice.cpp
    consumer/orderlyconsumeservice.cpp
    consumer/litepullconsumer.cpp)
