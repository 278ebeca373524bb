/*
 * cli/report_format.h - the writers of a report model (engine/report_model.h),
 * one per --format: text (report_text.c), csv (report_csv.c), json
 * (report_json.c), html (report_html.c with the charts of report_svg.c).
 */
#ifndef LATREC_CLI_REPORT_FORMAT_H
#define LATREC_CLI_REPORT_FORMAT_H

#include <stdio.h>

#include "engine/report_model.h"

typedef struct latrec_report_format {
    const char *name;    /* "text" */
    const char *summary; /* one line for --format help */
    void (*write)(const latrec_report *m, FILE *out);
} latrec_report_format;

/* Every format, the default first; ends with a NULL name. --format, --help
 * and the completion (latrec report --format help) list this table. */
extern const latrec_report_format latrec_report_formats[];
#define LATREC_REPORT_MAX_FORMATS 8

void latrec_report_write_text(const latrec_report *m, FILE *out);
void latrec_report_write_csv(const latrec_report *m, FILE *out);
void latrec_report_write_json(const latrec_report *m, FILE *out);
void latrec_report_write_html(const latrec_report *m, FILE *out);

/* Shared by the writers: v (ns when time) in the unit, "0.000" for a tiny
 * negative; the change from base as "+1.2 (+3.4%)". */
void latrec_report_fmt_value(char *buf, size_t len, double v, int time, const latrec_units *u);
void latrec_report_fmt_delta(char *buf, size_t len, double v, double base, int time, const latrec_units *u);

#endif
