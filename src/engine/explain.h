/*
 * engine/explain.h - the words of an --explain sentence: which hop took the
 * time and what the scheduler did to the threads that stamped it meanwhile
 * (engine/sched_view.h). report --explain writes them after each slow
 * instance's figures; record --stop-above after the instance that stopped
 * the run.
 */
#ifndef LATREC_ENGINE_EXPLAIN_H
#define LATREC_ENGINE_EXPLAIN_H

#include <stddef.h>
#include <stdint.h>

typedef struct latrec_explain_words {
    const char *row;    /* the hop or segment that took the most ("DEQUEUE->SEND") */
    const char *value;  /* its value, formatted in unit */
    const char *unit;   /* "us" */
    int has_share;      /* share_pct is its share of the total */
    double share_pct;
    uint32_t tid_b;     /* the thread that stamped its second stage */
    const char *why_b;  /* latrec_sched_view_explain() of tid_b */
    uint32_t tid_a;     /* the first stage's thread, when why_a */
    const char *why_a;  /* NULL: the same thread, or no scheduler data */
} latrec_explain_words;

/* "ROW took VALUE UNIT (N% of it). Thread T: WHY. Thread T2 (first stage):
 * WHY" without a final period, control characters and bytes that are not
 * UTF-8 escaped (read/escape.h). */
void latrec_explain_format(const latrec_explain_words *w, char *out, size_t len);

#endif
