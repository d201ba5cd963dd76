# libtenure as its users get it, built from the library layers' objects (core, api, client,
# election):
# - tenure::tenure in this build: the public headers and the layers' static libraries, without
#   any layer's include folder, so a user (examples/, or a project that adds this one as a
#   subdirectory) cannot include an internal header (lint.layering.library_* tests);
# - libtenure.so (SONAME from the version: libtenure.so.MAJOR, or libtenure.so.0.MINOR before
#   1.0) and libtenure.a, installed with the headers, the CMake package `tenure` (targets
#   tenure::tenure, tenure::tenure_shared, tenure::tenure_static) and the pkg-config file
#   tenure.pc.
set(TENURE_LIBRARY_LAYERS tenure_core tenure_api tenure_client tenure_election)
foreach(layer IN LISTS TENURE_LIBRARY_LAYERS)
  # Position-independent for the shared library; calls inside it stay direct.
  set_target_properties(${layer} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  target_compile_options(${layer} PRIVATE -fno-semantic-interposition)
endforeach()
target_compile_features(tenure_core PUBLIC cxx_std_20)

add_library(tenure_library INTERFACE)
add_library(tenure::tenure ALIAS tenure_library)
target_include_directories(tenure_library INTERFACE ${PROJECT_SOURCE_DIR}/include
                                                    ${PROJECT_BINARY_DIR}/include)
target_link_libraries(tenure_library INTERFACE $<LINK_ONLY:tenure_election>)
target_compile_features(tenure_library INTERFACE cxx_std_20)

if(NOT TENURE_INSTALL)
  return()
endif()

include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(tenure_objects)
foreach(layer IN LISTS TENURE_LIBRARY_LAYERS)
  list(APPEND tenure_objects $<TARGET_OBJECTS:${layer}>)
endforeach()
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(TENURE_SOVERSION 0.${PROJECT_VERSION_MINOR})
else()
  set(TENURE_SOVERSION ${PROJECT_VERSION_MAJOR})
endif()
set(tenure_private_deps OpenSSL::SSL OpenSSL::Crypto yaml-cpp Threads::Threads)

add_library(tenure_shared SHARED ${tenure_objects})
set_target_properties(tenure_shared PROPERTIES OUTPUT_NAME tenure VERSION ${PROJECT_VERSION}
                      SOVERSION ${TENURE_SOVERSION} EXPORT_NAME tenure_shared)
target_link_libraries(tenure_shared PRIVATE ${tenure_private_deps})

add_library(tenure_static STATIC ${tenure_objects})
set_target_properties(tenure_static PROPERTIES OUTPUT_NAME tenure EXPORT_NAME tenure_static)
target_link_libraries(tenure_static INTERFACE ${tenure_private_deps})

foreach(target tenure_shared tenure_static)
  target_include_directories(${target} INTERFACE $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  target_compile_features(${target} INTERFACE cxx_std_20)
endforeach()

install(TARGETS tenure_shared EXPORT tenureTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT library NAMELINK_COMPONENT dev)
install(TARGETS tenure_static EXPORT tenureStaticTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/tenure DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        COMPONENT dev FILES_MATCHING PATTERN "*.h")
install(FILES ${PROJECT_BINARY_DIR}/include/tenure/version.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tenure COMPONENT dev)
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT library)

set(tenure_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/tenure)
install(EXPORT tenureTargets NAMESPACE tenure:: DESTINATION ${tenure_cmake_dir} COMPONENT dev)
install(EXPORT tenureStaticTargets NAMESPACE tenure:: DESTINATION ${tenure_cmake_dir}
        COMPONENT dev)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/tenureConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/tenureConfig.cmake
                              INSTALL_DESTINATION ${tenure_cmake_dir})
# Before 1.0 a minor release may change the API: only the same MAJOR.MINOR is compatible.
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(tenure_compatibility SameMinorVersion)
else()
  set(tenure_compatibility SameMajorVersion)
endif()
write_basic_package_version_file(${PROJECT_BINARY_DIR}/tenureConfigVersion.cmake
                                 COMPATIBILITY ${tenure_compatibility})
install(FILES ${PROJECT_BINARY_DIR}/tenureConfig.cmake
              ${PROJECT_BINARY_DIR}/tenureConfigVersion.cmake
        DESTINATION ${tenure_cmake_dir} COMPONENT dev)

# pkg-config: the prefix is found from the file's own place, so an installed tree can move.
file(RELATIVE_PATH tenure_pc_to_prefix /${CMAKE_INSTALL_LIBDIR}/pkgconfig /)
string(REGEX REPLACE "/$" "" tenure_pc_to_prefix "${tenure_pc_to_prefix}")
configure_file(${PROJECT_SOURCE_DIR}/cmake/tenure.pc.in ${PROJECT_BINARY_DIR}/tenure.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/tenure.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig
        COMPONENT dev)
