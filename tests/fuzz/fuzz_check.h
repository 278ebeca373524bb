/*
 * fuzz_check.h - CHECK(x): an invariant of a fuzz target. A failure aborts,
 * which libFuzzer reports as a crash with the input that caused it.
 */
#ifndef LATREC_FUZZ_CHECK_H
#define LATREC_FUZZ_CHECK_H

#include <stdlib.h>

#define CHECK(x)                                                                                                       \
    do {                                                                                                               \
        if (!(x)) abort();                                                                                             \
    } while (0)

#endif
