# tst_package (cmake -P): installs the build tree into a fresh prefix, then configures, builds and
# runs tests/integration/package against it. Every step is bounded; a failure prints the step's
# output. Needs a complete build (the libraries and daemons the install rules list).
#   -DQROCKET_BUILD_DIR= -DQROCKET_PACKAGE_SOURCE= -DQROCKET_WORK_DIR= -DQROCKET_GENERATOR=
#   -DQROCKET_CXX_COMPILER= [-DQROCKET_CXX_LAUNCHER=] [-DQROCKET_BUILD_TYPE=] [-DQt6_DIR=]
foreach(var QROCKET_BUILD_DIR QROCKET_PACKAGE_SOURCE QROCKET_WORK_DIR QROCKET_GENERATOR
        QROCKET_CXX_COMPILER)
    if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
        message(FATAL_ERROR "packagetest.cmake: ${var} is not set")
    endif()
endforeach()

set(prefix "${QROCKET_WORK_DIR}/prefix")
set(build "${QROCKET_WORK_DIR}/build")
file(REMOVE_RECURSE "${QROCKET_WORK_DIR}")
file(MAKE_DIRECTORY "${QROCKET_WORK_DIR}")

# _step(<name> <timeout seconds> <command>...): runs the command; output in <name>_OUTPUT.
function(_step name timeout)
    execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err
        TIMEOUT ${timeout})
    if(NOT rc EQUAL 0)
        message(FATAL_ERROR "tst_package: ${name} failed (${rc}):\n${out}\n${err}\n"
            "(the install step needs a complete build: cmake --build ${QROCKET_BUILD_DIR})")
    endif()
    message(STATUS "tst_package: ${name} ok")
    set(${name}_OUTPUT "${out}" PARENT_SCOPE)
endfunction()

_step(install 120 "${CMAKE_COMMAND}" --install "${QROCKET_BUILD_DIR}" --prefix "${prefix}")
foreach(file lib/cmake/QRocket/QRocketConfig.cmake lib/cmake/QRocket/QRocketConfigVersion.cmake
        include/qrocket/clientlib/embedded/embeddedcluster.h
        include/qrocket/clientlib/common/status.h include/qrocket/broker/brokercontroller.h
        bin/qrocket-namesrv bin/qrocket-broker)
    if(NOT EXISTS "${prefix}/${file}")
        message(FATAL_ERROR "tst_package: ${prefix}/${file} was not installed")
    endif()
endforeach()

set(configure_args -S "${QROCKET_PACKAGE_SOURCE}" -B "${build}" -G "${QROCKET_GENERATOR}"
    "-DCMAKE_PREFIX_PATH=${prefix}" "-DCMAKE_CXX_COMPILER=${QROCKET_CXX_COMPILER}")
if(QROCKET_BUILD_TYPE)
    list(APPEND configure_args "-DCMAKE_BUILD_TYPE=${QROCKET_BUILD_TYPE}")
endif()
if(QROCKET_CXX_LAUNCHER)
    list(APPEND configure_args "-DCMAKE_CXX_COMPILER_LAUNCHER=${QROCKET_CXX_LAUNCHER}")
endif()
if(Qt6_DIR)
    list(APPEND configure_args "-DQt6_DIR=${Qt6_DIR}")
endif()
_step(configure 120 "${CMAKE_COMMAND}" ${configure_args})
_step(build 300 "${CMAKE_COMMAND}" --build "${build}" -j 2)
_step(run 60 "${build}/qrocket_package_smoke")
if(NOT run_OUTPUT MATCHES "name server 127\\.0\\.0\\.1:[1-9][0-9]*")
    message(FATAL_ERROR "tst_package: unexpected output:\n${run_OUTPUT}")
endif()
message(STATUS "tst_package: ${run_OUTPUT}")
file(REMOVE_RECURSE "${QROCKET_WORK_DIR}") # kept when a step failed, for a look
