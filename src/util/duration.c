/* The duration grammar (util/duration.h). */
#include "util/duration.h"

#include <stdio.h>
#include <string.h>

/* one unit a line */
/* clang-format off */
static const struct {
    const char *name;
    uint64_t    ns;
} units[] = {
    { "ns", 1ull },
    { "us", 1000ull },
    { "ms", 1000000ull },
    { "s", 1000000000ull },
    { "m", 60000000000ull },
    { "min", 60000000000ull },
    { "h", 3600000000000ull },
};
/* clang-format on */

#define UNIT_LIST "ns, us, ms, s, m, min, h"

uint64_t latrec_duration_unit_ns(const char *unit)
{
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
        if (strcmp(unit, units[i].name) == 0) return units[i].ns;
    return 0;
}

const char *latrec_duration_format(uint64_t ns, char *buf, size_t len)
{
    /* Largest unit first; "m" (not "min") as the one the help texts use. */
    static const int order[] = { 6, 4, 3, 2, 1, 0 };
    for (size_t k = 0; k < sizeof(order) / sizeof(order[0]); k++) {
        uint64_t u = units[order[k]].ns;
        if (ns && ns % u == 0) {
            snprintf(buf, len, "%llu%s", (unsigned long long)(ns / u), units[order[k]].name);
            return buf;
        }
    }
    snprintf(buf, len, "%lluns", (unsigned long long)ns);
    return buf;
}

/* DIGITS [. DIGITS] then the rest (the unit). Integer part in *whole, the
 * fraction's digits in frac[] (at most 18 kept: finer than any unit's ns).
 * -1 when malformed or the integer part overflows. */
static int split_number(const char *s, uint64_t *whole, char *frac, size_t frac_len, const char **rest)
{
    const char *p = s;
    uint64_t w = 0;
    int digits = 0;
    for (; *p >= '0' && *p <= '9'; p++, digits++) {
        if (w > (UINT64_MAX - (uint64_t)(*p - '0')) / 10) return -1;
        w = w * 10 + (uint64_t)(*p - '0');
    }
    size_t nf = 0;
    if (digits == 0) return -1; /* ".5" */
    if (*p == '.') {
        p++;
        for (; *p >= '0' && *p <= '9'; p++) {
            if (nf + 1 >= frac_len) return -1;
            frac[nf++] = *p;
        }
        if (nf == 0) return -1; /* "1." */
    }
    frac[nf] = '\0';
    *whole = w;
    *rest = p;
    return 0;
}

/* whole.frac x mul in ns, exactly: -1 on overflow, -2 when finer than 1 ns. */
static int scale(uint64_t whole, const char *frac, uint64_t mul, uint64_t *ns)
{
    if (whole > UINT64_MAX / mul) return -1;
    uint64_t v = whole * mul;
    uint64_t place = mul;
    for (const char *f = frac; *f; f++) {
        uint64_t d = (uint64_t)(*f - '0');
        if (place % 10) {
            if (d) return -2;
            for (const char *g = f; *g; g++)
                if (*g != '0') return -2;
            break;
        }
        place /= 10;
        if (v > UINT64_MAX - d * place) return -1;
        v += d * place;
    }
    *ns = v;
    return 0;
}

int latrec_duration_parse(const latrec_duration_opt *opt, const char *s, uint64_t *ns, char *err, size_t errlen)
{
    uint64_t whole;
    char frac[20];
    const char *unit;
    char lo[24], hi[24];
    if (split_number(s, &whole, frac, sizeof(frac), &unit) < 0 || (*unit && !latrec_duration_unit_ns(unit))) {
        snprintf(err, errlen, "%s: '%s' is not a duration (a number and one of " UNIT_LIST ", e.g. 100ms)", opt->name,
                 s);
        return -1;
    }
    uint64_t mul;
    if (*unit) {
        mul = latrec_duration_unit_ns(unit);
    } else if (opt->bare) {
        mul = latrec_duration_unit_ns(opt->bare);
    } else if (whole == 0 && strspn(frac, "0") == strlen(frac)) {
        mul = 1;
    } else {
        snprintf(err, errlen, "%s: '%s' needs a unit (" UNIT_LIST "), e.g. %s%s", opt->name, s, s,
                 opt->min_ns >= 1000 ? "ms" : "us");
        return -1;
    }
    uint64_t v;
    int rc = scale(whole, frac, mul, &v);
    if (rc == -2) {
        snprintf(err, errlen, "%s: '%s' is finer than 1 ns", opt->name, s);
        return -1;
    }
    if (rc < 0 || v < opt->min_ns || v > opt->max_ns) {
        snprintf(err, errlen, "%s: '%s' is out of range (%s..%s)", opt->name, s,
                 opt->min_ns ? latrec_duration_format(opt->min_ns, lo, sizeof(lo)) : "0",
                 latrec_duration_format(opt->max_ns, hi, sizeof(hi)));
        return -1;
    }
    *ns = v;
    return 0;
}
