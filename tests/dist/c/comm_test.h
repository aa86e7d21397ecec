/*
 * comm_test.h - what the transport test programs share: the transport under
 * test, this rank and the world size, and the per-rule reporting (each rule
 * prints "PASS <rule>" per rank, or "FAIL <rule> [rank r]: <why>" and the
 * program exits 1).  Included once per program.
 */
#ifndef COMM_TEST_H
#define COMM_TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "pto/mpi.h"
#include "runtime/comm.h"

static const rt_comm_ops *ops;
static void *S;
static int R, P;

#define CHECK(rule, cond, ...)                                                     \
    do {                                                                           \
        if (!(cond)) {                                                             \
            printf("FAIL %s [rank %d]: ", rule, R);                                \
            printf(__VA_ARGS__);                                                   \
            printf("\n");                                                          \
            fflush(stdout);                                                        \
            exit(1);                                                               \
        }                                                                          \
    } while (0)

static void pass(const char *rule)
{
    printf("PASS %s\n", rule);
    fflush(stdout);
}

#define OK(rule, call)                                                             \
    do {                                                                           \
        pto_error e_;                                                              \
        int rc_ = (call);                                                          \
        CHECK(rule, rc_ == 0, "%s -> %d\n%s", #call, rc_, rc_ ? e_.message : "");  \
    } while (0)
#define E (&e_)

static double secs(void) { return (double)base_now_ns() * 1e-9; }

/* Attaches to MPI_COMM_WORLD and fills ops, S, R, P; 0, or 1 after printing why not. */
static int attach(void)
{
    pto_error err;
    if (pto_dist_attach(NULL, MPI_COMM_WORLD, &err) < 0) {
        printf("FAIL attach: %s\n", err.message);
        return 1;
    }
    ops = rt_comm_transport(&S);
    R = ops->rank, P = ops->size;
    if (strcmp(ops->name, "mpi") != 0 || P < 2) {
        printf("FAIL attach: transport %s of %d ranks\n", ops->name, P);
        return 1;
    }
    return 0;
}

#endif
