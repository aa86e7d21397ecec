/*
 * test_lower_check.c - cc_lower_check (src/compiler/lower_check.c), the
 * check of a lowered program that Debug and sanitizer builds run after
 * lowering: every program the corpus lowers passes it, and each kind of
 * corruption (a compiler bug's symptom) is one named InternalError,
 * "lowered program check: ...", at the instruction's line:col instead of
 * a bad read in a VM.  One test per rule.
 */
#include <stdlib.h>
#include <string.h>

#include "compiler/lower.h"
#include "harness.h"
#include "dsl_compile.h"
#include "dsl_corpus.h"

/* ---- checking ------------------------------------------------------------------------------ */

/* Runs the check on l; returns its diagnostic as "line:col: message" ("" when it passed). */
static const char *check(const cc_lowered *l)
{
    static char msg[512];
    cc_diags d;
    cc_diags_init(&d, NULL);
    int rc = cc_lower_check(l, &d);
    msg[0] = 0;
    if (d.n) {
        assert_int_equal(d.items[0].cls, CC_DIAG_INTERNAL);
        snprintf(msg, sizeof msg, "%u:%u: %s", d.items[0].span.line, d.items[0].span.col, d.items[0].message);
    }
    assert_int_equal(rc, d.n ? -1 : 0);
    assert_true(d.n <= 1); /* the first breach only */
    cc_diags_free(&d);
    return msg;
}

/* The check fails naming want, at line:col (line 0: anywhere). */
static void expect_breach(const cc_lowered *l, const char *want, uint32_t line, uint32_t col)
{
    const char *got = check(l);
    char at[32];
    snprintf(at, sizeof at, "%u:%u: lowered program check: ", line, col);
    if (!strstr(got, want) || (line && strncmp(got, at, strlen(at))))
        fail_msg("got \"%s\"\nwant \"%s%s\"", got, line ? at : "", want);
    assert_non_null(strstr(got, ": lowered program check: "));
    assert_non_null(strstr(got, "(internal compiler error; please report)"));
}

/* ---- a compiled program with a corruptible copy ----------------------------------------------- */

static const char loop_src[] = DSL_F_HEADER
    "    for i in pl.range(4):\n"
    "        with pl.at(level=pl.Level.CORE_GROUP):\n"
    "            t = pl.load(a, [i * 64, 0], [64, 128])\n"
    "            pl.store(pl.add(t, 1.0), [i * 64, 0], out)\n"
    "    return out\n";

/* p's lowered program with procs[0]'s and kernels[0]'s code copied (c->l
 * points at the copies), so a test may corrupt an instruction. */
typedef struct copy {
    pto_program *p;
    cc_lowered l;
    cc_lo_proc procs[4], kernels[4];
} copy;

static void copy_of(copy *c, const char *src)
{
    c->p = dsl_compile(src, "f", PTO_STAGE_ALL);
    const cc_lowered *l = cc_program_lowered(c->p);
    assert_non_null(l);
    assert_true(l->nprocs <= 4 && l->nkernels <= 4 && l->nkernels >= 1);
    c->l = *l;
    memcpy(c->procs, l->procs, l->nprocs * sizeof *l->procs);
    memcpy(c->kernels, l->kernels, l->nkernels * sizeof *l->kernels);
    c->l.procs = c->procs, c->l.kernels = c->kernels;
    for (int k = 0; k < 2; k++) {
        cc_lo_proc *q = k ? &c->kernels[0] : &c->procs[0];
        cc_lo_insn *code = malloc(q->ncode * sizeof *code);
        assert_non_null(code);
        memcpy(code, q->code, q->ncode * sizeof *code);
        q->code = code;
    }
    assert_string_equal(check(&c->l), ""); /* uncorrupted, it passes */
}

static void copy_free(copy *c)
{
    free(c->procs[0].code), free(c->kernels[0].code);
    pto_program_free(c->p);
}

/* The first instruction of q with opcode code. */
static cc_lo_insn *first(cc_lo_proc *q, cc_lo_opcode code)
{
    for (uint32_t i = 0; i < q->ncode; i++)
        if (q->code[i].code == code) return &q->code[i];
    fail_msg("no %s in '%s'", cc_lo_opcode_name(code), q->name);
    return NULL;
}

/* ---- hand-built procedures ------------------------------------------------------------------- */

static const cc_lo_slot hand_regs[] = {
    {.name = "c", .type = {.kind = CC_T_SCALAR, .dtype = CC_DT_BOOL}},
    {.name = "x", .type = {.kind = CC_T_SCALAR, .dtype = CC_DT_INDEX}},
    {.name = NULL, .type = {.kind = CC_T_SCALAR, .dtype = CC_DT_INDEX}},
};

/* An orchestration procedure "h" of the three registers above running code. */
static cc_lowered hand(cc_lo_proc *q, cc_lo_insn *code, uint32_t n)
{
    *q = (cc_lo_proc){.name = "h", .kind = CC_FUNC_ORCHESTRATION, .line = 1, .col = 1, .regs = (cc_lo_slot *)hand_regs,
                      .nregs = 3, .code = code, .ncode = n};
    return (cc_lowered){.file = "k.py", .procs = q, .nprocs = 1};
}

static cc_lo_insn insn(cc_lo_opcode code, uint8_t dtype, int32_t dst, int32_t a, int32_t b, uint32_t line)
{
    return (cc_lo_insn){.code = code, .op = CC_OP_ADD, .dtype = dtype, .line = line, .col = 5, .dst = dst, .a = a, .b = b, .c = -1};
}

/* ---- rules ------------------------------------------------------------------------------------- */

static void test_lower_check_accepts_every_program_the_corpus_lowers(void **state)
{
    (void)state;
    for (size_t k = 0; k < DSL_CORPUS_N; k++) {
        pto_program *p = dsl_compile(dsl_corpus[k].text, dsl_corpus[k].entry, PTO_STAGE_ALL);
        const cc_lowered *l = cc_program_lowered(p);
        if (!l) {
            dsl_dump_diags(p);
            fail_msg("%s did not lower", dsl_corpus[k].name);
        }
        const char *got = check(l);
        if (*got) fail_msg("%s: %s", dsl_corpus[k].name, got);
        pto_program_free(p);
    }
}

static void test_lower_check_names_an_operand_out_of_range(void **state)
{
    (void)state;
    copy c;
    copy_of(&c, loop_src);
    cc_lo_insn *in = first(&c.procs[0], CC_LO_TRIPS);
    in->b = (int32_t)c.procs[0].nregs + 3;
    char want[128];
    snprintf(want, sizeof want, "procedure 'f' instruction %u (TRIPS): second operand register %u out of range (%u)",
             (unsigned)(in - c.procs[0].code), c.procs[0].nregs + 3, c.procs[0].nregs);
    expect_breach(&c.l, want, in->line, in->col);
    copy_free(&c);
}

static void test_lower_check_names_a_tile_out_of_range_in_a_kernel(void **state)
{
    (void)state;
    copy c;
    copy_of(&c, loop_src);
    cc_lo_insn *in = first(&c.kernels[0], CC_LO_STORE);
    in->b = -2;
    char want[160];
    snprintf(want, sizeof want, "kernel 'f_incore_0' instruction %u (STORE): source tile -2 out of range (%u)",
             (unsigned)(in - c.kernels[0].code), c.kernels[0].ntiles);
    expect_breach(&c.l, want, in->line, in->col);
    copy_free(&c);
}

static void test_lower_check_names_a_jump_target_out_of_range(void **state)
{
    (void)state;
    copy c;
    copy_of(&c, loop_src);
    first(&c.procs[0], CC_LO_JUMP)->u.target = c.procs[0].ncode + 10;
    char want[64];
    snprintf(want, sizeof want, "(JUMP): jump target %u out of range (%u)", c.procs[0].ncode + 10, c.procs[0].ncode);
    expect_breach(&c.l, want, 0, 0);
    copy_free(&c);
}

static void test_lower_check_names_an_instruction_its_program_does_not_run(void **state)
{
    (void)state;
    copy c;
    copy_of(&c, loop_src);
    first(&c.procs[0], CC_LO_SUBMIT)->code = CC_LO_LOAD;
    expect_breach(&c.l, "(LOAD): not an instruction of an orchestration procedure", 0, 0);
    copy_free(&c);
}

static void test_lower_check_names_a_submit_that_does_not_match_its_kernel(void **state)
{
    (void)state;
    copy c;
    copy_of(&c, loop_src);
    first(&c.procs[0], CC_LO_SUBMIT)->u.submit.nviews--;
    expect_breach(&c.l, "(SUBMIT): 1 views and 1 scalars for kernel 'f_incore_0', which takes 2 and 1", 0, 0);
    copy_free(&c);
}

static void test_lower_check_names_a_register_read_as_the_wrong_dtype_class(void **state)
{
    (void)state;
    cc_lo_insn code[] = {insn(CC_LO_CONST, CC_DT_INDEX, 1, -1, -1, 2), insn(CC_LO_BIN, CC_DT_FP32, 2, 1, 1, 3),
                         insn(CC_LO_RETURN, 0, -1, -1, -1, 4)};
    cc_lo_proc q;
    cc_lowered l = hand(&q, code, 3);
    expect_breach(&l, "procedure 'h' instruction 1 (BIN): first operand register 1 is INDEX, the instruction reads it as a float", 3, 5);
}

/* x is written on one branch only, then read where the branches meet. */
static void test_lower_check_names_a_register_read_before_it_is_written_on_some_path(void **state)
{
    (void)state;
    cc_lo_insn code[] = {insn(CC_LO_CONST, CC_DT_BOOL, 0, -1, -1, 2), insn(CC_LO_JUMP_IF_FALSE, 0, -1, 0, -1, 3),
                         insn(CC_LO_CONST, CC_DT_INDEX, 1, -1, -1, 4), insn(CC_LO_BIN, CC_DT_INDEX, 2, 1, 1, 5),
                         insn(CC_LO_RETURN, 0, -1, -1, -1, 6)};
    code[1].u.target = 3;
    cc_lo_proc q;
    cc_lowered l = hand(&q, code, 5);
    expect_breach(&l, "procedure 'h' instruction 3 (BIN): first operand register 1 is read before it is written on some path", 5, 5);
    /* written on both paths (the jump skips over a second write), it passes */
    code[1].u.target = 2;
    assert_string_equal(check(&l), "");
}

/* A loop body that writes x may run zero times: x read after it is a breach. */
static void test_lower_check_treats_a_loop_body_as_maybe_never_run(void **state)
{
    (void)state;
    cc_lo_insn code[] = {insn(CC_LO_CONST, CC_DT_BOOL, 0, -1, -1, 2), insn(CC_LO_JUMP_IF_FALSE, 0, -1, 0, -1, 3),
                         insn(CC_LO_CONST, CC_DT_INDEX, 1, -1, -1, 4), insn(CC_LO_JUMP, 0, -1, -1, -1, 5),
                         insn(CC_LO_BIN, CC_DT_INDEX, 2, 1, 1, 6), insn(CC_LO_RETURN, 0, -1, -1, -1, 7)};
    code[1].u.target = 4, code[3].u.target = 1;
    cc_lo_proc q;
    cc_lowered l = hand(&q, code, 6);
    expect_breach(&l, "instruction 4 (BIN): first operand register 1 is read before it is written on some path", 6, 5);
}

static void test_lower_check_names_code_that_does_not_end_with_return(void **state)
{
    (void)state;
    cc_lo_insn code[] = {insn(CC_LO_CONST, CC_DT_INDEX, 1, -1, -1, 2)};
    cc_lo_proc q;
    cc_lowered l = hand(&q, code, 1);
    expect_breach(&l, "procedure 'h' instruction 1 (-): the code does not end with RETURN", 1, 1);
}

/* A host procedure (DISTRIBUTED-SPEC §2.1): its WINBUFs, then ENTER, then the rest. */
static cc_lowered host(cc_lo_proc *q, cc_lo_insn *code, uint32_t n)
{
    cc_lowered l = hand(q, code, n);
    q->kind = CC_LO_HOST;
    return l;
}

static void test_lower_check_accepts_a_host_prologue(void **state)
{
    (void)state;
    cc_lo_insn code[] = {insn(CC_LO_CONST, CC_DT_INDEX, 1, -1, -1, 2), insn(CC_LO_WINBUF, 0, -1, 1, -1, 2),
                         insn(CC_LO_WORLD, CC_DT_INDEX, 2, -1, -1, 3), insn(CC_LO_WINBUF, 0, -1, 1, 2, 3),
                         insn(CC_LO_ENTER, 0, -1, -1, -1, 4), insn(CC_LO_RETURN, 0, -1, -1, -1, 5)};
    code[3].u.win.buf = 1;
    cc_lo_proc q;
    cc_lowered l = host(&q, code, 6);
    assert_string_equal(check(&l), "");
}

static void test_lower_check_names_a_host_procedure_without_enter(void **state)
{
    (void)state;
    cc_lo_insn code[] = {insn(CC_LO_RETURN, 0, -1, -1, -1, 2)};
    cc_lo_proc q;
    cc_lowered l = host(&q, code, 1);
    expect_breach(&l, "procedure 'h' instruction 1 (-): a host procedure without ENTER", 1, 1);
}

static void test_lower_check_names_a_window_buffer_after_enter(void **state)
{
    (void)state;
    cc_lo_insn code[] = {insn(CC_LO_CONST, CC_DT_INDEX, 1, -1, -1, 2), insn(CC_LO_ENTER, 0, -1, -1, -1, 3),
                         insn(CC_LO_WINBUF, 0, -1, 1, -1, 4), insn(CC_LO_RETURN, 0, -1, -1, -1, 5)};
    cc_lo_proc q;
    cc_lowered l = host(&q, code, 4);
    expect_breach(&l, "instruction 2 (WINBUF): WINBUF #0 after ENTER or out of order", 4, 5);
}

static void test_lower_check_names_host_and_comm_instructions_elsewhere(void **state)
{
    (void)state;
    cc_lo_insn code[] = {insn(CC_LO_ENTER, 0, -1, -1, -1, 2), insn(CC_LO_RETURN, 0, -1, -1, -1, 3)};
    cc_lo_proc q;
    cc_lowered l = hand(&q, code, 2);
    expect_breach(&l, "(ENTER): not an instruction of an orchestration procedure", 2, 5);
    code[0].code = CC_LO_COMM;
    q.kind = CC_LO_HOST;
    expect_breach(&l, "(COMM): not an instruction of a host procedure", 2, 5);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_lower_check_accepts_every_program_the_corpus_lowers),
    cmocka_unit_test(test_lower_check_names_an_operand_out_of_range),
    cmocka_unit_test(test_lower_check_names_a_tile_out_of_range_in_a_kernel),
    cmocka_unit_test(test_lower_check_names_a_jump_target_out_of_range),
    cmocka_unit_test(test_lower_check_names_an_instruction_its_program_does_not_run),
    cmocka_unit_test(test_lower_check_names_a_submit_that_does_not_match_its_kernel),
    cmocka_unit_test(test_lower_check_names_a_register_read_as_the_wrong_dtype_class),
    cmocka_unit_test(test_lower_check_names_a_register_read_before_it_is_written_on_some_path),
    cmocka_unit_test(test_lower_check_treats_a_loop_body_as_maybe_never_run),
    cmocka_unit_test(test_lower_check_names_code_that_does_not_end_with_return),
    cmocka_unit_test(test_lower_check_accepts_a_host_prologue),
    cmocka_unit_test(test_lower_check_names_a_host_procedure_without_enter),
    cmocka_unit_test(test_lower_check_names_a_window_buffer_after_enter),
    cmocka_unit_test(test_lower_check_names_host_and_comm_instructions_elsewhere),
};

PTO_TEST_MAIN(tests)
