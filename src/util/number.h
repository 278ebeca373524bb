/*
 * util/number.h - counts, plain numbers and named choices for options.
 *
 * A count is DIGITS only (no sign, no space, no hex) in the option's own
 * inclusive range. A plain number is [-]DIGITS[.DIGITS]: finite by grammar
 * (strtod's nan, inf, hex and exponents are refused before it is called).
 * A choice is a word of a NULL-terminated table: the table is what the
 * option's --help, its error message and the man page and completion list.
 */
#ifndef LATREC_UTIL_NUMBER_H
#define LATREC_UTIL_NUMBER_H

#include <stddef.h>
#include <stdint.h>

typedef struct latrec_count_opt {
    const char *name; /* "--top" */
    uint64_t min, max;
} latrec_count_opt;

/* 0 and *v, or -1 with one line in err ("--top: 'x' is not a count in 0..10000"). */
int latrec_count_parse(const latrec_count_opt *opt, const char *s, uint64_t *v, char *err, size_t errlen);

/* [-]DIGITS[.DIGITS] -> *v in [min, max]. 0, or -1 (nothing written). */
int latrec_number_parse(const char *s, double min, double max, double *v);

/* v (>= 0) in that grammar with the fewest decimals that read back as v
 * ("99.9", "50", "99.9999999"; never an exponent): the name a percentile's
 * column and a gate on it share. Returns buf. */
const char *latrec_number_format(double v, char *buf, size_t len);

typedef struct latrec_choice {
    const char *name; /* "json"; NULL ends a table */
    int value;
    const char *doc; /* one line for "--OPTION=help" (NULL: none) */
} latrec_choice;

/* The value of word s in the table, or -1 when it is none of them. */
int latrec_choice_parse(const latrec_choice *table, const char *s, int *value);

/* "text (default), csv or json" (in table order; the entry whose value is
 * default_value marked, none when -1) into buf; returns buf. */
const char *latrec_choice_list(const latrec_choice *table, int default_value, char *buf, size_t len);

#endif
