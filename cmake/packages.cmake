# The `tenure` tool's install rule and the Debian packages built from this build folder with
# CPack (`cpack -G DEB` in the build folder): libtenureX.Y (the shared library), libtenure-dev
# (headers, static library, CMake package, pkg-config file) and tenure (the tool).
include(GNUInstallDirs)
install(TARGETS tenure RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT tool)

set(CPACK_PACKAGE_NAME tenure)
set(CPACK_PACKAGE_VENDOR "The tenure authors")
set(CPACK_PACKAGE_CONTACT "The tenure authors <tenure@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_GENERATOR DEB)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL library dev tool)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION libs)
# Each package's shared-library dependencies from the binaries it holds (dpkg-shlibdeps).
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_LIBRARY_PACKAGE_NAME libtenure${TENURE_SOVERSION})
set(CPACK_DEBIAN_DEV_PACKAGE_NAME libtenure-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS
    "libtenure${TENURE_SOVERSION} (= ${PROJECT_VERSION}), libssl-dev, libyaml-cpp-dev")
set(CPACK_DEBIAN_TOOL_PACKAGE_NAME tenure)
set(CPACK_DEBIAN_TOOL_PACKAGE_SECTION admin)
set(CPACK_COMPONENT_LIBRARY_DESCRIPTION "tenure: Kubernetes-style leader election for C++ (shared library)")
set(CPACK_COMPONENT_DEV_DESCRIPTION
    "tenure: Kubernetes-style leader election for C++ (headers, static library, CMake and pkg-config files)")
set(CPACK_COMPONENT_TOOL_DESCRIPTION
    "tenure: a Kubernetes-compatible coordination server and the tenure command (serve, run, get, demo)")
include(CPack)
