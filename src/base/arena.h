/*
 * arena.h - a bump allocator for data that dies together (a compile's AST
 * and IR).  Blocks are chained; freeing the arena frees everything at once.
 * Allocations are 16-byte aligned and zeroed.
 */
#ifndef BASE_ARENA_H
#define BASE_ARENA_H

#include <stddef.h>

typedef struct base_arena_block base_arena_block;

typedef struct base_arena {
    base_arena_block *head;
    size_t used, cap; /* in the head block */
} base_arena;

void base_arena_init(base_arena *a);
void base_arena_free(base_arena *a);

/* n zeroed bytes; NULL when out of memory (or n absurdly large). */
void *base_arena_alloc(base_arena *a, size_t n);

/* A NUL-terminated copy of n bytes of s. */
char *base_arena_strndup(base_arena *a, const char *s, size_t n);

#endif
