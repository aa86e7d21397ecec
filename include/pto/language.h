/*
 * pto/language.h - the names and enums of pypto.language as the compiler
 * knows them, for bindings: the Python package builds its pl names and its
 * IntEnums from these tables, so the two never drift apart.
 *
 * Invariants: the tables are static and never change while the library is
 * loaded; names are unique; an enum's members are in declaration order and
 * several members may share a value (aliases: the first is the value's name).
 */
#ifndef PTO_LANGUAGE_H
#define PTO_LANGUAGE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One pl name: pl.<name>.
 *   status  "supported", "later" (rejected as not supported in this
 *           version) or "hardware" (rejected as Ascend-specific)
 *   kind    "op", "loop", "scope", "statement", "builtin", "annotation",
 *           "enum", "constant", "decorator", "namespace", "dtype", "class" */
typedef struct pto_lang_name {
    const char *name, *status, *kind;
} pto_lang_name;

/* The number of pl names. */
size_t pto_lang_name_count(void);
/* The i-th pl name (i < pto_lang_name_count()). */
pto_lang_name pto_lang_name_at(size_t i);

/* The names of pypto.language.distributed, the same way: pld.<name>, name a dotted path
 * ("tensor.put", "system.notify"; "NotifyOp", "DistributedTensor"; the namespaces "tensor",
 * "system", "tile"); its enums (NotifyOp, WaitCmp, ReduceOp; AtomicType is pl's) are among
 * pto_lang_enums'. */
size_t pto_lang_pld_name_count(void);
pto_lang_name pto_lang_pld_name_at(size_t i);

typedef struct pto_lang_member {
    const char *name;
    int value;
} pto_lang_member;

/* One enum of pypto.language: DataType (later dtypes included), Level,
 * ScopeMode, CachePolicy, FunctionType, MemorySpace, Layout, PadValue, SplitMode, AtomicType,
 * MaskPattern, and the distributed ones: NotifyOp, WaitCmp, ReduceOp, Role (pl.Role). */
typedef struct pto_lang_enum {
    const char *name;
    const pto_lang_member *members;
    size_t count;
} pto_lang_enum;

/* The enums; *count gets their number. */
const pto_lang_enum *pto_lang_enums(size_t *count);

#ifdef __cplusplus
}
#endif

#endif
