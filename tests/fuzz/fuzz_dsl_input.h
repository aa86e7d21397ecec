/*
 * fuzz_dsl_input.h - the input format of fuzz_compile: a small header that
 * decodes into pto_compile_options, then the DSL source text.  The seed
 * writer (fuzz_seeds.c) encodes with the same tables, so a seed compiles
 * the entry it was written for.
 *
 * Layout (every field one byte unless said; a short input reads zeros):
 *   entry     0xFF: none (check the file only); else names[b % n], where
 *             names are the identifiers after `def ` and `class ` in the
 *             source, in order (none found: no entry)
 *   function  0xFF: none; else names[b % n] (a @pl.program's method)
 *   stop      < 0x80: every stage; else stage b % PTO_STAGE_COUNT
 *   skip      bit 0 set: skip_stages = b & 0xFE (stages parse..cache)
 *   counts    low nibble % 5 constants, high nibble % 5 argument specs
 *   position  first_line = b % 4, first_column = (b >> 4) % 8
 *   constant  x count: name, kind, 8 value bytes
 *   arg spec  x count: name, spec (bit 7 scalar; bits 0-2 dtype % 7;
 *             bits 3-4 rank - 1), 4 x int16 shape, kind, 8 value bytes
 *   source    the rest
 * Invariant: decoding never reads past the input and every string it hands
 * the compiler points into static tables or into fuzz_dsl_case itself.
 */
#ifndef PTO_FUZZ_DSL_INPUT_H
#define PTO_FUZZ_DSL_INPUT_H

#include <string.h>

#include "fuzz_input.h"
#include "pto/compile.h"

#define FUZZ_DSL_MAX_NAMES 16
#define FUZZ_DSL_NAME_LEN 48
#define FUZZ_DSL_MAX_CONSTS 4
#define FUZZ_DSL_MAX_ARGS 4

/* Constant names (the corpus's module constants) and parameter names. */
static const char *const fuzz_dsl_const_names[] = {"N", "TR", "TC", "R", "C", "ROWS", "M", "K",
                                                   "BLOCK", "pl", "scale", "i", "x", "n", "True", "_"};
static const char *const fuzz_dsl_arg_names[] = {"a", "out", "w", "x", "y", "row", "n", "b",
                                                 "self", "t", "s", "c", "i", "tmp", "q", ""};
static const char *const fuzz_dsl_strings[] = {"", "floor", "a2a3sim", "dict", "module", "\xff\xfe"};

#define FUZZ_DSL_COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* One decoded compile. */
typedef struct fuzz_dsl_case {
    char names[FUZZ_DSL_MAX_NAMES][FUZZ_DSL_NAME_LEN];
    int nnames;
    pto_constant consts[FUZZ_DSL_MAX_CONSTS];
    pto_arg_spec args[FUZZ_DSL_MAX_ARGS];
    pto_compile_options opts;
} fuzz_dsl_case;

static inline int fuzz_dsl_ident_char(char c)
{
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* Collects the names after "def " and "class " (at a word start) in src. */
static inline int fuzz_dsl_scan_names(const char *src, size_t n, char names[][FUZZ_DSL_NAME_LEN])
{
    int count = 0;
    for (size_t i = 0; i < n && count < FUZZ_DSL_MAX_NAMES; i++) {
        if (i > 0 && fuzz_dsl_ident_char(src[i - 1])) continue;
        size_t k;
        if (n - i > 4 && memcmp(src + i, "def ", 4) == 0) k = 4;
        else if (n - i > 6 && memcmp(src + i, "class ", 6) == 0) k = 6;
        else continue;
        size_t j = i + k, len = 0;
        while (j + len < n && len < FUZZ_DSL_NAME_LEN - 1 && fuzz_dsl_ident_char(src[j + len])) len++;
        if (len == 0) continue;
        memcpy(names[count], src + j, len);
        names[count][len] = '\0';
        count++;
    }
    return count;
}

static inline pto_value fuzz_dsl_value(fuzz_input *in)
{
    pto_value v;
    memset(&v, 0, sizeof v);
    v.kind = (pto_value_kind)(fuzz_u8(in) % 5);
    uint64_t bits = fuzz_u64(in);
    switch (v.kind) {
    case PTO_VALUE_INT: v.i = (int64_t)bits; break;
    case PTO_VALUE_FLOAT: memcpy(&v.f, &bits, sizeof v.f); break;
    case PTO_VALUE_BOOL: v.i = (int64_t)(bits & 1); break;
    default: v.s = fuzz_dsl_strings[bits % FUZZ_DSL_COUNT(fuzz_dsl_strings)]; break;
    }
    return v;
}

/* Decodes data into c (see the layout above). */
static inline void fuzz_dsl_decode(const uint8_t *data, size_t size, fuzz_dsl_case *c)
{
    memset(c, 0, sizeof *c);
    fuzz_input in = {data, size};
    uint8_t entry = fuzz_u8(&in), function = fuzz_u8(&in), stop = fuzz_u8(&in), skip = fuzz_u8(&in);
    uint8_t counts = fuzz_u8(&in), position = fuzz_u8(&in);
    int nconsts = (counts & 15) % 5, nargs = (counts >> 4) % 5;
    for (int i = 0; i < nconsts; i++) {
        c->consts[i].name = fuzz_dsl_const_names[fuzz_u8(&in) % FUZZ_DSL_COUNT(fuzz_dsl_const_names)];
        c->consts[i].value = fuzz_dsl_value(&in);
    }
    for (int i = 0; i < nargs; i++) {
        pto_arg_spec *a = &c->args[i];
        a->name = fuzz_dsl_arg_names[fuzz_u8(&in) % FUZZ_DSL_COUNT(fuzz_dsl_arg_names)];
        uint8_t spec = fuzz_u8(&in);
        a->kind = spec & 0x80 ? PTO_ARG_SCALAR : PTO_ARG_TENSOR;
        a->dtype = (pto_dtype)((spec & 7) % 7);
        a->rank = 1 + ((spec >> 3) & 3);
        for (int d = 0; d < 4; d++) a->shape[d] = (int16_t)fuzz_u16(&in);
        a->value = fuzz_dsl_value(&in);
    }
    const char *src = (const char *)in.p;
    c->nnames = fuzz_dsl_scan_names(src, in.n, c->names);
    pto_compile_options *o = &c->opts;
    o->filename = "fuzz.py";
    o->source = src;
    o->source_len = in.n;
    o->first_line = position % 4;
    o->first_column = (position >> 4) % 8;
    o->entry = entry == 0xFF || c->nnames == 0 ? NULL : c->names[entry % c->nnames];
    o->function = function == 0xFF || c->nnames == 0 ? NULL : c->names[function % c->nnames];
    o->constants = c->consts;
    o->nconstants = (size_t)nconsts;
    o->args = c->args;
    o->nargs = (size_t)nargs;
    o->stop_after = stop < 0x80 ? PTO_STAGE_ALL : stop % PTO_STAGE_COUNT;
    o->skip_stages = skip & 1 ? (unsigned)(skip & 0xFE) : 0;
}

#endif
