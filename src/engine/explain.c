/* The words of an --explain sentence (explain.h). */
#include "engine/explain.h"

#include <stdio.h>

#include "read/escape.h"

void latrec_explain_format(const latrec_explain_words *w, char *out, size_t len)
{
    char why_b[1024], why_a[1024], share[32] = "";
    if (w->has_share) snprintf(share, sizeof(share), " (%.0f%% of it)", w->share_pct);
    int n = snprintf(out, len, "%s took %s %s%s. Thread %u: %s", w->row, w->value, w->unit, share, w->tid_b,
                     latrec_text_safe(w->why_b, why_b, sizeof(why_b)));
    if (w->why_a && n >= 0 && (size_t)n < len)
        snprintf(out + n, len - (size_t)n, ". Thread %u (first stage): %s", w->tid_a,
                 latrec_text_safe(w->why_a, why_a, sizeof(why_a)));
}
