# Unit tests of the broker extras: delay schedule, send-back, admin processors.
foreach(t schedule sendback admin sendproperties)
    qrocket_add_qtest(NAME tst_${t} SOURCES tst_${t}.cpp
        LIBS QRocket::broker_lib LABELS unit TIMEOUT 60)
endforeach()
qrocket_add_qtest(NAME tst_rebalancelock SOURCES tst_rebalancelock.cpp
    LIBS QRocket::broker_lib LABELS unit TIMEOUT 60)
