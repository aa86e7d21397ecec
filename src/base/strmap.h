/*
 * strmap.h - a hash map from NUL-terminated strings to uint32_t values,
 * open addressing with linear probing (FNV-1a).  Keys are borrowed: they
 * must outlive the map (the compiler's names live in its arena).  Removal
 * leaves a tombstone; the table grows (and drops tombstones) at 1/2 load.
 */
#ifndef BASE_STRMAP_H
#define BASE_STRMAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct base_strmap_slot {
    const char *key;   /* NULL: empty */
    uint32_t value;
    uint32_t dead;     /* a removed entry (tombstone) */
} base_strmap_slot;

typedef struct base_strmap {
    base_strmap_slot *slots;
    size_t cap;        /* 0 or a power of two */
    size_t used;       /* live entries and tombstones */
} base_strmap;

void base_strmap_free(base_strmap *m);
/* The value of key, or -1 when absent. */
int64_t base_strmap_get(const base_strmap *m, const char *key);
/* Sets key to value; returns 0, or -1 when out of memory. */
int base_strmap_put(base_strmap *m, const char *key, uint32_t value);
void base_strmap_remove(base_strmap *m, const char *key);

#endif
