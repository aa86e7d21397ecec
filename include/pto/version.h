/*
 * pto/version.h - the one place the version is set.  CMake (project
 * version, the shared library's SONAME by major version, pto.pc, the
 * CMake package), the Python package (pypto.__version__, its metadata)
 * and the tools' --version all read these three numbers.
 */
#ifndef PTO_VERSION_H
#define PTO_VERSION_H

#define PTO_VERSION_MAJOR 0
#define PTO_VERSION_MINOR 1
#define PTO_VERSION_PATCH 0

#define PTO_VERSION_STR_(x) #x
#define PTO_VERSION_STR(x) PTO_VERSION_STR_(x)
/* "0.1.0" */
#define PTO_VERSION_STRING \
    PTO_VERSION_STR(PTO_VERSION_MAJOR) "." PTO_VERSION_STR(PTO_VERSION_MINOR) "." PTO_VERSION_STR(PTO_VERSION_PATCH)

/* The library's version as MAJOR * 10000 + MINOR * 100 + PATCH: compare it
 * with the PTO_VERSION_* a program was built against. */
int pto_version(void);
/* The library's version as "MAJOR.MINOR.PATCH". */
const char *pto_version_string(void);

#endif
