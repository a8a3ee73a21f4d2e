# Install rules and the CMake package, so that an application can
#
#   find_package(QRocket 0.1 CONFIG REQUIRED)
#   target_link_libraries(app PRIVATE QRocket::client QRocket::embedded)
#
# Installed (cmake --install <build> --prefix <prefix>):
#   lib/libqrocket_*.a                 the libraries QRocket::embedded and QRocket::client need
#                                      (common, protocol, remoting, storage, namesrv_lib,
#                                      broker_core, broker_lib, embedded, client), found by
#                                      following their links, so a new dependency is not forgotten
#   include/qrocket/<dir>/...h         every header of those libraries' folders, at the paths the
#                                      headers include each other by ("clientlib/common/status.h")
#   bin/qrocket-namesrv, qrocket-broker
#   lib/cmake/QRocket/                 QRocketConfig.cmake (finds Qt6 Core/Network, ZLIB, Threads),
#                                      QRocketConfigVersion.cmake (same minor version while 0.x),
#                                      QRocketTargets.cmake (QRocket::<module>, and
#                                      QRocket::qrocket-namesrv / qrocket-broker as executables)
#
# The libraries link the project's warning target qrocket_settings only inside the build tree
# ($<BUILD_INTERFACE>): an application gets C++20 and, for a sanitizer build, the sanitizer link
# flags, never our -Werror or warning list. Included from the top CMakeLists.txt; the rules are
# made at the end of the top directory, once every module (and deferred links) exist.

include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(QROCKET_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/QRocket")
set(QROCKET_INSTALL_INCLUDEDIR "${CMAKE_INSTALL_INCLUDEDIR}/qrocket")

# _qrocket_install_closure(<out> <target>...): the project's own (non-imported) library targets
# reachable from <target>... through their link libraries, the roots included; qrocket_settings
# (build-only) excluded.
function(_qrocket_install_closure out)
    set(seen "")
    set(queue ${ARGN})
    while(queue)
        list(POP_FRONT queue item)
        string(REGEX REPLACE "^\\$<(LINK_ONLY|BUILD_INTERFACE):(.*)>$" "\\2" item "${item}")
        if(NOT TARGET "${item}")
            continue()
        endif()
        get_target_property(aliased "${item}" ALIASED_TARGET)
        if(aliased)
            set(item "${aliased}")
        endif()
        get_target_property(imported "${item}" IMPORTED)
        get_target_property(type "${item}" TYPE)
        if(imported OR item STREQUAL "qrocket_settings" OR NOT type MATCHES "LIBRARY$"
                OR item IN_LIST seen)
            continue()
        endif()
        list(APPEND seen "${item}")
        foreach(property LINK_LIBRARIES INTERFACE_LINK_LIBRARIES)
            get_target_property(libs "${item}" ${property})
            if(libs)
                list(APPEND queue ${libs})
            endif()
        endforeach()
    endwhile()
    set(${out} "${seen}" PARENT_SCOPE)
endfunction()

# _qrocket_install_prepare(<target>): makes an exported target relocatable: QRocket::<module>
# as its exported name, the source-tree include path and qrocket_settings for the build tree
# only, C++20 (and the sanitizer link flags) for whoever links the installed library.
function(_qrocket_install_prepare target)
    string(REGEX REPLACE "^qrocket_" "" name "${target}")
    set_target_properties(${target} PROPERTIES EXPORT_NAME "${name}")

    get_target_property(includes ${target} INTERFACE_INCLUDE_DIRECTORIES)
    if(includes)
        set(wrapped "")
        foreach(dir ${includes})
            if(dir MATCHES "^\\$<" OR NOT (dir MATCHES "^${PROJECT_SOURCE_DIR}"
                    OR dir MATCHES "^${PROJECT_BINARY_DIR}"))
                list(APPEND wrapped "${dir}")
            else()
                list(APPEND wrapped "$<BUILD_INTERFACE:${dir}>")
            endif()
        endforeach()
        set_target_properties(${target} PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${wrapped}")
    endif()

    get_target_property(libs ${target} INTERFACE_LINK_LIBRARIES)
    if(libs)
        list(TRANSFORM libs REPLACE "^(\\$<LINK_ONLY:)?qrocket_settings>?$"
            "$<BUILD_INTERFACE:qrocket_settings>")
        set_target_properties(${target} PROPERTIES INTERFACE_LINK_LIBRARIES "${libs}")
    endif()
    set_property(TARGET ${target} APPEND PROPERTY INTERFACE_COMPILE_FEATURES cxx_std_20)
    if(QROCKET_SANITIZE)
        set_property(TARGET ${target} APPEND PROPERTY INTERFACE_LINK_OPTIONS
            "$<INSTALL_INTERFACE:-fsanitize=${QROCKET_SANITIZE}>")
    endif()
endfunction()

function(_qrocket_install_rules)
    set(roots "")
    foreach(target qrocket_common qrocket_protocol qrocket_remoting qrocket_storage
            qrocket_namesrv_lib qrocket_broker_core qrocket_broker_lib qrocket_embedded
            qrocket_client)
        if(TARGET ${target})
            list(APPEND roots ${target})
        endif()
    endforeach()
    _qrocket_install_closure(libraries ${roots})

    set(header_dirs "")
    foreach(target ${libraries})
        _qrocket_install_prepare(${target})
        get_target_property(dir ${target} SOURCE_DIR)
        list(APPEND header_dirs "${dir}")
    endforeach()
    list(REMOVE_DUPLICATES header_dirs)
    foreach(dir ${header_dirs})
        file(RELATIVE_PATH relative "${PROJECT_SOURCE_DIR}" "${dir}")
        install(DIRECTORY "${dir}/" DESTINATION "${QROCKET_INSTALL_INCLUDEDIR}/${relative}"
            FILES_MATCHING PATTERN "*.h")
    endforeach()

    set(daemons "")
    foreach(target qrocket-namesrv qrocket-broker)
        if(TARGET ${target})
            list(APPEND daemons ${target})
        endif()
    endforeach()

    install(TARGETS ${libraries} ${daemons} EXPORT QRocketTargets
        ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}"
        LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}"
        RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}"
        INCLUDES DESTINATION "${QROCKET_INSTALL_INCLUDEDIR}")
    # The operator tools: programs only, not part of the exported package.
    foreach(target qrocket-admin qrocket-bench qrocket-console)
        if(TARGET ${target})
            install(TARGETS ${target} RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}")
        endif()
    endforeach()
    install(EXPORT QRocketTargets NAMESPACE QRocket:: FILE QRocketTargets.cmake
        DESTINATION "${QROCKET_INSTALL_CMAKEDIR}")

    configure_package_config_file("${PROJECT_SOURCE_DIR}/resources/cmake/QRocketConfig.cmake.in"
        "${PROJECT_BINARY_DIR}/QRocketConfig.cmake"
        INSTALL_DESTINATION "${QROCKET_INSTALL_CMAKEDIR}" PATH_VARS QROCKET_INSTALL_INCLUDEDIR)
    write_basic_package_version_file("${PROJECT_BINARY_DIR}/QRocketConfigVersion.cmake"
        VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
    install(FILES "${PROJECT_BINARY_DIR}/QRocketConfig.cmake"
        "${PROJECT_BINARY_DIR}/QRocketConfigVersion.cmake"
        DESTINATION "${QROCKET_INSTALL_CMAKEDIR}")

    list(JOIN libraries " " shown)
    list(JOIN daemons " " shown_daemons)
    message(STATUS "QRocket install: ${shown} ${shown_daemons}")
endfunction()

cmake_language(DEFER DIRECTORY "${PROJECT_SOURCE_DIR}" CALL _qrocket_install_rules)
