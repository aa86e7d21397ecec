/*
 * names.c - the pl name table (names.h) built from its lists, the enums of
 * the language as (member, value) tables, and pto/language.h over both.
 *
 * Invariants: cc_pl_names holds every pl name once, in list order (the ops,
 * the dtypes, the other names); an enum's members are its X-list's, in
 * order, so a value's first member is its name.
 */
#include "compiler/names.h"

#include <string.h>

#include "compiler/types.h"

#define CC_N(a) (sizeof(a) / sizeof((a)[0]))

static const cc_pl_name cc_pl_names[] = {
#define CC_OP_NAME_(n, s, ...) {s, CC_PL_SUPPORTED, CC_PLK_OP, CC_PLR_NONE},
#define CC_DTYPE_NAME_(n, size, fl, pl) {#n, CC_PL_SUPPORTED, CC_PLK_DTYPE, CC_PLR_NONE},
#define CC_DTYPE_LATER_NAME_(n, v, st, r) {#n, CC_PL_##st, CC_PLK_DTYPE, CC_PLR_##r},
#define CC_PL_NAME_(n, st, k, r) {#n, CC_PL_##st, CC_PLK_##k, CC_PLR_##r},
    CC_IR_PL_OP_LIST(CC_OP_NAME_) CC_DTYPE_LIST(CC_DTYPE_NAME_) CC_DTYPE_LATER_LIST(CC_DTYPE_LATER_NAME_) CC_PL_NAME_LIST(CC_PL_NAME_)
#undef CC_OP_NAME_
#undef CC_DTYPE_NAME_
#undef CC_DTYPE_LATER_NAME_
#undef CC_PL_NAME_
};

static const cc_pl_name cc_pld_names[] = {
#define CC_PLD_NAME_(p, op, sp, st, k) {p, CC_PL_##st, CC_PLK_##k, CC_PLR_NONE},
    CC_PLD_NAME_LIST(CC_PLD_NAME_)
#undef CC_PLD_NAME_
};

static const cc_pl_keyword cc_pl_keywords[] = {
#define CC_PL_KEYWORD_(f, k, st, r) {#f, #k, CC_PL_##st, CC_PLR_##r},
    CC_PL_KEYWORD_LIST(CC_PL_KEYWORD_)
#undef CC_PL_KEYWORD_
};

const cc_pl_name *cc_pl_name_find(const char *name)
{
    static const cc_pl_name alias = {"", CC_PL_SUPPORTED, CC_PLK_OP, CC_PLR_NONE}; /* a "pl" alias row of ops.h (pl.rems) */
    for (size_t k = 0; k < CC_N(cc_pl_names); k++)
        if (!strcmp(cc_pl_names[k].name, name)) return &cc_pl_names[k];
    int srhs;
    return cc_ir_op_lookup_alias(name, &srhs) >= 0 ? &alias : NULL;
}

cc_pl_reason cc_pl_member_reason(const char *parent, const char *member)
{
    static const struct {
        const char *parent, *member;
        uint8_t reason;
    } rows[] = {
#define CC_PL_MEMBER_(p, m, r) {#p, #m, CC_PLR_##r},
        CC_PL_MEMBER_LIST(CC_PL_MEMBER_)
#undef CC_PL_MEMBER_
    };
    for (size_t k = 0; k < CC_N(rows); k++)
        if (!strcmp(rows[k].parent, parent) && !strcmp(rows[k].member, member)) return (cc_pl_reason)rows[k].reason;
    return CC_PLR_NONE;
}

const cc_pl_keyword *cc_pl_keyword_find(const char *form, const char *kw)
{
    for (size_t k = 0; k < CC_N(cc_pl_keywords); k++)
        if (!strcmp(cc_pl_keywords[k].form, form) && !strcmp(cc_pl_keywords[k].name, kw)) return &cc_pl_keywords[k];
    return NULL;
}

const char *cc_pl_reason_text(cc_pl_reason r)
{
    static const char *const texts[] = {
#define CC_PL_REASON_TEXT_(n, s) s,
        CC_PL_REASON_LIST(CC_PL_REASON_TEXT_)
#undef CC_PL_REASON_TEXT_
    };
    return (unsigned)r < CC_N(texts) ? texts[r] : "";
}

/* ---- enums -------------------------------------------------------------------------------- */

#define CC_MEMBER_(n, v) {#n, v},
#define CC_FUNC_KIND_MEMBER_(n, m, v) {#m, v},
#define CC_DTYPE_MEMBER_(n, size, fl, pl) {#n, pl},
#define CC_DTYPE_LATER_MEMBER_(n, v, st, r) {#n, v},
static const pto_lang_member cc_dtype_members[] = {CC_DTYPE_LIST(CC_DTYPE_MEMBER_) CC_DTYPE_LATER_LIST(CC_DTYPE_LATER_MEMBER_)};
static const pto_lang_member cc_level_members[] = {CC_LEVEL_LIST(CC_MEMBER_)};
static const pto_lang_member cc_scope_mode_members[] = {CC_SCOPE_MODE_LIST(CC_MEMBER_)};
static const pto_lang_member cc_cache_policy_members[] = {CC_CACHE_POLICY_LIST(CC_MEMBER_)};
static const pto_lang_member cc_func_kind_members[] = {CC_FUNC_KIND_LIST(CC_FUNC_KIND_MEMBER_)};
static const pto_lang_member cc_memory_space_members[] = {CC_MEMORY_SPACE_LIST(CC_MEMBER_)};
static const pto_lang_member cc_layout_members[] = {CC_LAYOUT_LIST(CC_MEMBER_)};
static const pto_lang_member cc_pad_value_members[] = {CC_PAD_VALUE_LIST(CC_MEMBER_)};
static const pto_lang_member cc_split_mode_members[] = {CC_SPLIT_MODE_LIST(CC_MEMBER_)};
static const pto_lang_member cc_atomic_type_members[] = {CC_ATOMIC_TYPE_LIST(CC_MEMBER_)};
static const pto_lang_member cc_mask_pattern_members[] = {CC_MASK_PATTERN_LIST(CC_MEMBER_)};
static const pto_lang_member cc_notify_op_members[] = {CC_NOTIFY_OP_LIST(CC_MEMBER_)};
static const pto_lang_member cc_wait_cmp_members[] = {CC_WAIT_CMP_LIST(CC_MEMBER_)};
static const pto_lang_member cc_reduce_op_members[] = {CC_REDUCE_OP_LIST(CC_MEMBER_)};
static const pto_lang_member cc_role_members[] = {CC_ROLE_LIST(CC_MEMBER_)};
#undef CC_MEMBER_
#undef CC_FUNC_KIND_MEMBER_
#undef CC_DTYPE_MEMBER_
#undef CC_DTYPE_LATER_MEMBER_

#define CC_ENUM_(name, members) {name, members, CC_N(members)}
static const pto_lang_enum cc_enums[] = {
    CC_ENUM_("DataType", cc_dtype_members), CC_ENUM_("Level", cc_level_members),
    CC_ENUM_("ScopeMode", cc_scope_mode_members), CC_ENUM_("CachePolicy", cc_cache_policy_members),
    CC_ENUM_("FunctionType", cc_func_kind_members), CC_ENUM_("MemorySpace", cc_memory_space_members),
    CC_ENUM_("Layout", cc_layout_members), CC_ENUM_("PadValue", cc_pad_value_members),
    CC_ENUM_("SplitMode", cc_split_mode_members), CC_ENUM_("AtomicType", cc_atomic_type_members),
    CC_ENUM_("MaskPattern", cc_mask_pattern_members), CC_ENUM_("NotifyOp", cc_notify_op_members),
    CC_ENUM_("WaitCmp", cc_wait_cmp_members), CC_ENUM_("ReduceOp", cc_reduce_op_members), CC_ENUM_("Role", cc_role_members)};
#undef CC_ENUM_

/* The first member of value v, or fallback. */
static const char *cc_member_name(const pto_lang_member *m, size_t n, int v, const char *fallback)
{
    for (size_t k = 0; k < n; k++)
        if (m[k].value == v) return m[k].name;
    return fallback;
}

const char *cc_level_name(cc_level l) { return cc_member_name(cc_level_members, CC_N(cc_level_members), (int)l, "UNDEFINED"); }

const char *cc_cache_policy_name(cc_cache_policy c)
{
    return cc_member_name(cc_cache_policy_members, CC_N(cc_cache_policy_members), (int)c, "DEFAULT");
}

const char *cc_mem_name(cc_mem m) { return cc_member_name(cc_memory_space_members, CC_N(cc_memory_space_members), (int)m, "Vec"); }

const char *cc_func_kind_name(cc_func_kind k) { return cc_member_name(cc_func_kind_members, CC_N(cc_func_kind_members), (int)k, "Opaque"); }

const char *cc_pad_value_name(int v) { return cc_member_name(cc_pad_value_members, CC_N(cc_pad_value_members), v, "zero"); }

const char *cc_split_mode_name(int v) { return cc_member_name(cc_split_mode_members, CC_N(cc_split_mode_members), v, "NONE"); }

const char *cc_cmp_mode_name(int v)
{
    static const char *const modes[] = {"eq", "ne", "lt", "le", "gt", "ge"};
    return v >= 0 && v < 6 ? modes[v] : "eq";
}

const char *cc_mask_pattern_name(int v) { return cc_member_name(cc_mask_pattern_members, CC_N(cc_mask_pattern_members), v, "P1111"); }

const char *cc_notify_op_name(int v) { return cc_member_name(cc_notify_op_members, CC_N(cc_notify_op_members), v, "AtomicAdd"); }
const char *cc_wait_cmp_name(int v) { return cc_member_name(cc_wait_cmp_members, CC_N(cc_wait_cmp_members), v, "Eq"); }
const char *cc_reduce_op_name(int v) { return cc_member_name(cc_reduce_op_members, CC_N(cc_reduce_op_members), v, "Sum"); }

const char *cc_atomic_type_name(int v) { return cc_member_name(cc_atomic_type_members, CC_N(cc_atomic_type_members), v, "None_"); }

int cc_pl_enum_value(const char *enum_name, const char *member)
{
    if (!strcmp(enum_name, "Mem")) enum_name = "MemorySpace"; /* pl.Mem is pl.MemorySpace */
    for (size_t e = 0; e < CC_N(cc_enums); e++) {
        if (strcmp(cc_enums[e].name, enum_name)) continue;
        for (size_t k = 0; k < cc_enums[e].count; k++)
            if (!strcmp(cc_enums[e].members[k].name, member)) return cc_enums[e].members[k].value;
    }
    return -1;
}

/* ---- pto/language.h ------------------------------------------------------------------------ */

size_t pto_lang_name_count(void) { return CC_N(cc_pl_names); }

pto_lang_name pto_lang_name_at(size_t i)
{
    static const char *const statuses[] = {"supported", "later", "hardware"};
    static const char *const kinds[] = {
#define CC_PL_KIND_TEXT_(n, s) s,
        CC_PL_KIND_LIST(CC_PL_KIND_TEXT_)
#undef CC_PL_KIND_TEXT_
    };
    const cc_pl_name *n = &cc_pl_names[i < CC_N(cc_pl_names) ? i : 0];
    return (pto_lang_name){n->name, statuses[n->status], kinds[n->kind]};
}

const pto_lang_enum *pto_lang_enums(size_t *count)
{
    *count = CC_N(cc_enums);
    return cc_enums;
}

size_t pto_lang_pld_name_count(void) { return CC_N(cc_pld_names); }

pto_lang_name pto_lang_pld_name_at(size_t i)
{
    static const char *const statuses[] = {"supported", "later", "hardware"};
    static const char *const kinds[] = {
#define CC_PL_KIND_TEXT_(n, s) s,
        CC_PL_KIND_LIST(CC_PL_KIND_TEXT_)
#undef CC_PL_KIND_TEXT_
    };
    const cc_pl_name *n = &cc_pld_names[i < CC_N(cc_pld_names) ? i : 0];
    return (pto_lang_name){n->name, statuses[n->status], kinds[n->kind]};
}
