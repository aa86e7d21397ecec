/* TEMP */
#ifndef CC_LOWER_H
#define CC_LOWER_H
#include "base/strbuf.h"
#include "compiler/ir.h"
typedef struct cc_lowered cc_lowered;
int cc_lower(const cc_ir_program *p, base_arena *a, cc_lowered **out);
void cc_lowered_print(const cc_lowered *l, base_strbuf *out);
#endif
