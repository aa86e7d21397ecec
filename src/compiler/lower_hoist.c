/*
 * lower_hoist.c - constants out of an orchestration procedure's loops
 * (lower_int.h lo_hoist_consts): a CONST that sets a temporary register (no
 * name: the lowering's own, for a box bound, an offset, a loop's step) which
 * no other instruction writes moves to the procedure's start, so it runs
 * once per call, not once per iteration.  Jump targets follow the moved
 * code; a jump to a moved CONST lands on the instruction after it.
 *
 * Why every read sees the same value: the lowering sets a temporary right
 * before the instructions that read it, on the same straight path, so none
 * reads it before its CONST; with no other write, from the start on it holds
 * that constant.  Writes counted: every rdst (SUBMIT's when set), a CALL's
 * results, an ASET's whole array, and the parameters.
 */
#include <stdlib.h>
#include <string.h>

#include "compiler/lower_int.h"

/* Counts one write of each register in insn `in` into writes (saturating at 2). */
static void lo_count_writes(const cc_lo_insn *in, uint32_t nregs, uint8_t *writes)
{
#define LO_WRITE_(r) do { int64_t r_ = (r); if (r_ >= 0 && (uint64_t)r_ < nregs && writes[r_] < 2) writes[r_]++; } while (0)
    switch (in->code) {
    case CC_LO_CONST: case CC_LO_MOV: case CC_LO_CAST: case CC_LO_BIN: case CC_LO_UN: case CC_LO_TRIPS:
    case CC_LO_READ: case CC_LO_BLOCK: case CC_LO_AGET: case CC_LO_DIM: case CC_LO_SUBMIT:
        LO_WRITE_(in->dst);
        break;
    case CC_LO_ASET:
        for (int64_t k = 0; k < in->u.imm.i; k++) LO_WRITE_(in->dst + k);
        break;
    case CC_LO_CALL:
        for (uint32_t k = 0; k < in->u.call.nresults; k++)
            if (in->u.call.results[k].kind == CC_LO_REG) LO_WRITE_(in->u.call.results[k].index);
        break;
    default: break;
    }
#undef LO_WRITE_
}

int lo_hoist_consts(cc_lo_proc *p)
{
    uint32_t n = p->ncode;
    uint8_t *writes = calloc(p->nregs ? p->nregs : 1, 1), *hoist = calloc(n ? n : 1, 1);
    uint32_t *at = malloc((n + 1) * sizeof *at);
    cc_lo_insn *code = malloc((n ? n : 1) * sizeof *code);
    int rc = writes && hoist && at && code ? 0 : -1;
    for (uint32_t k = 0; rc == 0 && k < p->nparams; k++)
        if (p->params[k].kind == CC_LO_REG && p->params[k].index < p->nregs) writes[p->params[k].index] = 2;
    for (uint32_t i = 0; rc == 0 && i < n; i++) lo_count_writes(&p->code[i], p->nregs, writes);
    uint32_t moved = 0;
    for (uint32_t i = 0; rc == 0 && i < n; i++) {
        const cc_lo_insn *in = &p->code[i];
        hoist[i] = in->code == CC_LO_CONST && in->dst >= 0 && (uint32_t)in->dst < p->nregs && writes[in->dst] == 1 &&
                   !p->regs[in->dst].name;
        moved += hoist[i];
    }
    if (rc == 0 && moved) {
        /* at[i]: the new index of old instruction i (a moved one: the next kept one's) */
        uint32_t front = 0, kept = moved;
        for (uint32_t i = 0; i < n; i++) {
            at[i] = kept;
            if (hoist[i]) code[front++] = p->code[i];
            else code[kept++] = p->code[i];
        }
        at[n] = kept;
        for (uint32_t i = 0; i < n; i++)
            if (code[i].code == CC_LO_JUMP || code[i].code == CC_LO_JUMP_IF_FALSE) code[i].u.target = at[code[i].u.target];
        memcpy(p->code, code, n * sizeof *code);
    }
    free(writes), free(hoist), free(at), free(code);
    return rc;
}
