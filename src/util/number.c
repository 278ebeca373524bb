/* Counts, plain numbers and choices (util/number.h). */
#include "util/number.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int latrec_count_parse(const latrec_count_opt *opt, const char *s, uint64_t *v, char *err, size_t errlen)
{
    uint64_t n = 0;
    const char *p = s;
    int ok = *p != '\0';
    for (; ok && *p; p++) {
        if (*p < '0' || *p > '9' || n > (UINT64_MAX - (uint64_t)(*p - '0')) / 10) ok = 0;
        else n = n * 10 + (uint64_t)(*p - '0');
    }
    if (!ok || n < opt->min || n > opt->max) {
        snprintf(err, errlen, "%s: '%s' is not a count in %llu..%llu", opt->name, s, (unsigned long long)opt->min,
                 (unsigned long long)opt->max);
        return -1;
    }
    *v = n;
    return 0;
}

int latrec_number_parse(const char *s, double min, double max, double *v)
{
    const char *p = s + (*s == '-');
    size_t whole = strspn(p, "0123456789");
    p += whole;
    if (*p == '.') {
        size_t frac = strspn(p + 1, "0123456789");
        if (!frac) return -1;
        p += 1 + frac;
    }
    if (!whole || *p) return -1;
    double d = strtod(s, NULL);
    if (!(d >= min && d <= max)) return -1;
    *v = d;
    return 0;
}

const char *latrec_number_format(double v, char *buf, size_t len)
{
    for (int d = 0; d <= 30; d++) {
        snprintf(buf, len, "%.*f", d, v);
        if (strtod(buf, NULL) == v) break;
    }
    return buf;
}

int latrec_choice_parse(const latrec_choice *table, const char *s, int *value)
{
    for (const latrec_choice *c = table; c->name; c++)
        if (strcmp(c->name, s) == 0) {
            *value = c->value;
            return 0;
        }
    return -1;
}

const char *latrec_choice_list(const latrec_choice *table, int default_value, char *buf, size_t len)
{
    size_t n = 0, count = 0;
    while (table[count].name) count++;
    buf[0] = '\0';
    for (size_t i = 0; i < count; i++) {
        const char *sep = i == 0 ? "" : i + 1 == count ? " or " : ", ";
        int k = snprintf(buf + n, n < len ? len - n : 0, "%s%s%s", sep, table[i].name,
                         table[i].value == default_value ? " (default)" : "");
        if (k > 0) n += (size_t)k;
    }
    return buf;
}
