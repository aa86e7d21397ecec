/* A program built against an installed libpto (tests/install, README "Install"). */
#include <pto/runtime.h>
#include <stdio.h>

static int hello(const pto_kernel_args *a) { return printf("hello from task %s\n", (const char *)a->ctx) < 0; }

int main(void)
{
    pto_runtime *rt;
    if (pto_runtime_create(NULL, &rt, NULL)) return 1;
    pto_task t = {.kernel = hello, .ctx = "one", .name = "hello"};
    int rc = pto_task_submit(rt, &t, NULL) || pto_runtime_finish(rt);
    printf("libpto %s (built against %s): %s\n", pto_version_string(), PTO_VERSION_STRING, rc ? "failed" : "ok");
    pto_runtime_destroy(rt);
    return rc;
}
