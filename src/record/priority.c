/* -P/--priority (rtla's syntax) and -c/--cpus parsing; sched_setattr. */
#include "record/priority.h"

#include "util/duration.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The kernel's struct sched_attr (SCHED_ATTR_SIZE_VER0, 48 bytes); glibc
 * before 2.41 has no wrapper. */
struct latrec_sched_attr {
    uint32_t size;
    uint32_t sched_policy;
    uint64_t sched_flags;
    int32_t  sched_nice;
    uint32_t sched_priority;
    uint64_t sched_runtime;
    uint64_t sched_deadline;
    uint64_t sched_period;
};

/* "500us" -> 500000: the one duration grammar (util/duration.h); a bare
 * number is ns, as in rtla's -P. -1 when malformed. */
static int parse_ns(const char *s, const char *end_of_field, uint64_t *ns)
{
    static const latrec_duration_opt opt = { "-P", "ns", 1, UINT64_MAX };
    char field[32], err[160];
    size_t n = (size_t)(end_of_field - s);
    if (n >= sizeof(field)) return -1;
    memcpy(field, s, n);
    field[n] = '\0';
    return latrec_duration_parse(&opt, field, ns, err, sizeof(err));
}

static int parse_int_after_colon(const char *arg, long lo, long hi, long *out)
{
    if (arg[1] != ':' || !arg[2]) return -1;
    char *end;
    errno = 0;
    long v = strtol(arg + 2, &end, 10);
    if (errno || *end || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

int latrec_sched_parse(const char *arg, latrec_sched *s, char *err, size_t errlen)
{
    memset(s, 0, sizeof(*s));
    snprintf(s->text, sizeof(s->text), "%s", arg);
    long v;
    switch (arg[0]) {
    case 'o': case 'O':
        if (parse_int_after_colon(arg, -20, 19, &v) < 0) {
            snprintf(err, errlen, "'%s': expected o:NICE with NICE in -20..19", arg);
            return -1;
        }
        s->policy = SCHED_OTHER;
        s->nice = (int)v;
        return 0;
    case 'r': case 'R':
    case 'f': case 'F': {
        int pol = (arg[0] == 'r' || arg[0] == 'R') ? SCHED_RR : SCHED_FIFO;
        long lo = sched_get_priority_min(pol), hi = sched_get_priority_max(pol);
        if (parse_int_after_colon(arg, lo, hi, &v) < 0) {
            snprintf(err, errlen, "'%s': expected %c:PRIO with PRIO in %ld..%ld", arg,
                     pol == SCHED_RR ? 'r' : 'f', lo, hi);
            return -1;
        }
        s->policy = pol;
        s->prio = (unsigned)v;
        return 0;
    }
    case 'd': case 'D': {
        const char *rt = arg[1] == ':' ? arg + 2 : NULL;
        const char *colon = rt ? strchr(rt, ':') : NULL;
        if (!rt || !colon || parse_ns(rt, colon, &s->runtime_ns) < 0 ||
            parse_ns(colon + 1, colon + 1 + strlen(colon + 1), &s->period_ns) < 0) {
            snprintf(err, errlen, "'%s': expected d:RUNTIME:PERIOD, e.g. d:500us:1ms", arg);
            return -1;
        }
        if (s->runtime_ns == 0 || s->runtime_ns > s->period_ns) {
            snprintf(err, errlen, "'%s': runtime must be above 0 and at most the period", arg);
            return -1;
        }
        s->policy = SCHED_DEADLINE;
        return 0;
    }
    default:
        snprintf(err, errlen, "'%s': policy must be o (other), r (rr), f (fifo) or d (deadline)", arg);
        return -1;
    }
}

int latrec_sched_apply(pid_t pid, const latrec_sched *s)
{
    struct latrec_sched_attr a;
    memset(&a, 0, sizeof(a));
    a.size = sizeof(a);
    a.sched_policy = (uint32_t)s->policy;
    switch (s->policy) {
    case SCHED_OTHER: a.sched_nice = s->nice; break;
    case SCHED_RR:
    case SCHED_FIFO: a.sched_priority = s->prio; break;
    case SCHED_DEADLINE:
        a.sched_runtime = s->runtime_ns;
        a.sched_deadline = s->period_ns;
        a.sched_period = s->period_ns;
        break;
    default: return -EINVAL;
    }
    if (syscall(SYS_sched_setattr, pid, &a, 0u) != 0) return -errno;
    return 0;
}

const char *latrec_sched_policy_name(int policy)
{
    switch (policy) {
    case SCHED_OTHER: return "other";
    case SCHED_RR: return "rr";
    case SCHED_FIFO: return "fifo";
    case SCHED_DEADLINE: return "deadline";
    default: return "unknown";
    }
}

int latrec_cpulist_parse(const char *arg, cpu_set_t *set, char *err, size_t errlen)
{
    CPU_ZERO(set);
    const char *p = arg;
    if (!*p) goto bad;
    for (;;) {
        char *end;
        if (!isdigit((unsigned char)*p)) goto bad;
        unsigned long a = strtoul(p, &end, 10), b = a;
        p = end;
        if (*p == '-') {
            p++;
            if (!isdigit((unsigned char)*p)) goto bad;
            b = strtoul(p, &end, 10);
            p = end;
        }
        if (a > b || b >= CPU_SETSIZE) {
            snprintf(err, errlen, "'%s': cpu range %lu-%lu is reversed or above %d", arg, a, b,
                     CPU_SETSIZE - 1);
            return -1;
        }
        for (unsigned long c = a; c <= b; c++) CPU_SET(c, set);
        if (*p == '\0') break;
        if (*p != ',') goto bad;
        p++;
    }
    return 0;
bad:
    snprintf(err, errlen, "'%s': not a cpu list (e.g. 0-2,5)", arg);
    return -1;
}
