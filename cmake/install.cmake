# What `make install` (cmake --install) puts under the prefix, and `make deb`
# packs: the public headers, libpto.a and libpto.so.MAJOR (every layer's
# objects; the shared library exports only the pto_ API, cmake/pto.map),
# the tools ptoc and pto-scope-stats, pto.pc, the CMake package (pto::pto)
# and the docs.  Sanitizer builds install nothing.
if(PTO_SANITIZE)
  return()
endif()
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(PTO_LIBRARY_OBJECTS)
foreach(layer pto_base pto_tile pto pto_compiler pto_exec)
  list(APPEND PTO_LIBRARY_OBJECTS $<TARGET_OBJECTS:${layer}>)
endforeach()

add_library(pto_shared SHARED ${PTO_LIBRARY_OBJECTS})
set_target_properties(pto_shared PROPERTIES
  OUTPUT_NAME pto VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR}
  EXPORT_NAME pto LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/lib
  LINK_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/pto.map)
target_link_options(pto_shared PRIVATE -Wl,--version-script=${CMAKE_CURRENT_LIST_DIR}/pto.map -Wl,--no-undefined)
find_package(PkgConfig REQUIRED)
pkg_check_modules(PTO_OPENBLAS REQUIRED IMPORTED_TARGET openblas)
target_link_libraries(pto_shared PRIVATE PkgConfig::PTO_OPENBLAS Threads::Threads m)
target_include_directories(pto_shared INTERFACE $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)

add_library(pto_static STATIC ${PTO_LIBRARY_OBJECTS})
set_target_properties(pto_static PROPERTIES OUTPUT_NAME pto ARCHIVE_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/lib)

install(TARGETS pto_shared EXPORT ptoTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS pto_static ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS ptoc pto-scope-stats RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${CMAKE_SOURCE_DIR}/include/pto DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${CMAKE_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${CMAKE_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR})

# pto.pc finds its prefix from where it lies (${pcfiledir}), so a DESTDIR or
# --prefix chosen at install time needs no reconfiguring.
file(RELATIVE_PATH PTO_PC_TO_PREFIX /${CMAKE_INSTALL_LIBDIR}/pkgconfig /)
string(REGEX REPLACE "/$" "" PTO_PC_TO_PREFIX "${PTO_PC_TO_PREFIX}")
configure_file(${CMAKE_CURRENT_LIST_DIR}/pto.pc.in ${CMAKE_BINARY_DIR}/pto.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/pto.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

set(PTO_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/pto)
install(EXPORT ptoTargets NAMESPACE pto:: DESTINATION ${PTO_CMAKE_DIR})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/ptoConfig.cmake.in ${CMAKE_BINARY_DIR}/ptoConfig.cmake
  INSTALL_DESTINATION ${PTO_CMAKE_DIR})
# 0.x: a minor version may break the API, so only the same minor is compatible.
write_basic_package_version_file(${CMAKE_BINARY_DIR}/ptoConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/ptoConfig.cmake ${CMAKE_BINARY_DIR}/ptoConfigVersion.cmake DESTINATION ${PTO_CMAKE_DIR})

# make deb: CPack's DEB generator over the same install rules, prefix /usr.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME pto)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "PyPTO runtime developers <pto@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "PyPTO task runtime, DSL compiler and executor for the host CPU (libpto, ptoc, pto-scope-stats)")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libc6, libopenblas0 | libopenblas0-pthread | libopenblas0-openmp | libopenblas0-serial, libjansson4")
set(CPACK_PACKAGE_DIRECTORY ${CMAKE_BINARY_DIR}/deb)
include(CPack)
