/*
 * strmap.c - the string hash map of strmap.h.
 */
#include "base/strmap.h"

#include "base/fnv.h"

#include <stdlib.h>
#include <string.h>

static uint64_t base_strmap_hash(const char *s) { return base_fnv_str(BASE_FNV_BASIS, s); }

void base_strmap_free(base_strmap *m)
{
    free(m->slots);
    *m = (base_strmap){0};
}

/* The slot holding key, or NULL. */
static base_strmap_slot *base_strmap_find(const base_strmap *m, const char *key)
{
    if (!m->cap) return NULL;
    for (size_t i = base_strmap_hash(key) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        base_strmap_slot *s = &m->slots[i];
        if (!s->key) return NULL;
        if (!s->dead && !strcmp(s->key, key)) return s;
    }
}

int64_t base_strmap_get(const base_strmap *m, const char *key)
{
    const base_strmap_slot *s = base_strmap_find(m, key);
    return s ? (int64_t)s->value : -1;
}

static int base_strmap_grow(base_strmap *m)
{
    size_t cap = m->cap ? m->cap * 2 : 16;
    base_strmap_slot *slots = calloc(cap, sizeof *slots), *old = m->slots;
    if (!slots) return -1;
    size_t oldcap = m->cap;
    m->slots = slots, m->cap = cap, m->used = 0;
    for (size_t k = 0; k < oldcap; k++)
        if (old[k].key && !old[k].dead) base_strmap_put(m, old[k].key, old[k].value);
    free(old);
    return 0;
}

int base_strmap_put(base_strmap *m, const char *key, uint32_t value)
{
    base_strmap_slot *s = base_strmap_find(m, key);
    if (s) return s->value = value, 0;
    if (2 * (m->used + 1) > m->cap && base_strmap_grow(m) != 0) return -1;
    size_t i = base_strmap_hash(key) & (m->cap - 1);
    while (m->slots[i].key) i = (i + 1) & (m->cap - 1);
    m->slots[i] = (base_strmap_slot){key, value, 0};
    m->used++;
    return 0;
}

void base_strmap_remove(base_strmap *m, const char *key)
{
    base_strmap_slot *s = base_strmap_find(m, key);
    if (s) s->dead = 1;
}
