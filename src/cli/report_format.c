/* The report's formats (one table for --format, --help and the completion)
 * and the value formatting every writer shares. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli/report_format.h"

const latrec_report_format latrec_report_formats[] = {
    { "text", "tables for a terminal (default)", latrec_report_write_text },
    { "csv", "one row per hop (or per interval, or per slowest instance and hop)", latrec_report_write_csv },
    { "json", "the whole report as one JSON object", latrec_report_write_json },
    { "html", "one self-contained page with charts (use -o FILE)", latrec_report_write_html },
    { NULL, NULL, NULL },
};

void latrec_report_fmt_value(char *buf, size_t len, double v, int time, const latrec_units *u)
{
    if (time) snprintf(buf, len, "%.*f", u->decimals, v / u->div);
    else snprintf(buf, len, "%.3f", v);
    /* A tiny negative value (a skewness of -1e-17) rounds to zero: print
     * "0.000", not "-0.000". */
    if (buf[0] == '-' && strspn(buf + 1, "0.") == strlen(buf + 1)) memmove(buf, buf + 1, strlen(buf));
}

void latrec_report_fmt_delta(char *buf, size_t len, double v, double base, int time, const latrec_units *u)
{
    char d[48];
    latrec_report_fmt_value(d, sizeof(d), v - base, time, u);
    if (base != 0) snprintf(buf, len, "%s%s (%+.1f%%)", v - base >= 0 ? "+" : "", d, (v - base) / fabs(base) * 100.0);
    else snprintf(buf, len, "%s%s", v - base >= 0 ? "+" : "", d);
}
