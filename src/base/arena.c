/*
 * arena.c - the bump allocator (see arena.h).  Each block holds at least
 * 64 KiB; a larger request gets a block of its own.
 */
#include "base/arena.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct base_arena_block {
    base_arena_block *next;
    size_t cap;
    _Alignas(16) unsigned char data[];
};

void base_arena_init(base_arena *a)
{
    a->head = NULL;
    a->used = a->cap = 0;
}

void base_arena_free(base_arena *a)
{
    for (base_arena_block *b = a->head, *next; b; b = next) {
        next = b->next;
        free(b);
    }
    base_arena_init(a);
}

void *base_arena_alloc(base_arena *a, size_t n)
{
    if (n > SIZE_MAX / 2) return NULL;
    n = (n + 15) & ~(size_t)15;
    if (!a->head || a->cap - a->used < n) {
        size_t cap = n > 65536 ? n : 65536;
        base_arena_block *b = malloc(sizeof *b + cap);
        if (!b) return NULL;
        b->next = a->head;
        b->cap = cap;
        a->head = b;
        a->used = 0;
        a->cap = cap;
    }
    void *p = a->head->data + a->used;
    a->used += n;
    memset(p, 0, n);
    return p;
}

char *base_arena_strndup(base_arena *a, const char *s, size_t n)
{
    char *p = base_arena_alloc(a, n + 1);
    if (p) memcpy(p, s, n);
    return p;
}
