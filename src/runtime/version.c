/*
 * version.c - the library's version (pto/version.h), as built.
 */
#include "pto/version.h"

int pto_version(void) { return PTO_VERSION_MAJOR * 10000 + PTO_VERSION_MINOR * 100 + PTO_VERSION_PATCH; }

const char *pto_version_string(void) { return PTO_VERSION_STRING; }
