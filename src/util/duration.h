/*
 * util/duration.h - the one duration grammar of every latrec option.
 *
 *   DURATION := NUMBER UNIT | NUMBER      (the bare form only where allowed)
 *   NUMBER   := DIGITS [ "." DIGITS ]     (no sign, exponent, hex, nan, inf)
 *   UNIT     := ns | us | ms | s | m | min | h
 *
 * A bare number is taken in the option's own unit (opt->bare) when the
 * option has one - the unit its --help states, as rtla does for -d - and is
 * refused otherwise, "0" excepted (zero is zero in every unit). The value is
 * computed in integers: exact, or refused when finer than 1 ns or beyond
 * 2^64-1 ns. Ranges are data: every option names its own bounds.
 */
#ifndef LATREC_UTIL_DURATION_H
#define LATREC_UTIL_DURATION_H

#include <stddef.h>
#include <stdint.h>

typedef struct latrec_duration_opt {
    const char *name; /* the option as messages name it: "--interval" */
    const char *bare; /* unit of a bare number ("s", "ns"), NULL: a unit is required */
    uint64_t min_ns;  /* inclusive bounds */
    uint64_t max_ns;
} latrec_duration_opt;

/* Parse s by opt. 0 and *ns, or -1 with one line in err ("--interval: '1'
 * needs a unit (ns, us, ms, s, m, min, h), e.g. 100ms"). */
int latrec_duration_parse(const latrec_duration_opt *opt, const char *s, uint64_t *ns, char *err, size_t errlen);

/* ns per unit ("us" -> 1000), or 0 when s is not a unit of the grammar. */
uint64_t latrec_duration_unit_ns(const char *unit);

/* A duration in the largest unit that states it exactly ("1500us" -> "1500us",
 * "2000ms" -> "2s"); buf >= 24 bytes. */
const char *latrec_duration_format(uint64_t ns, char *buf, size_t len);

#endif
