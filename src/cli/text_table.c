/* text_table.c - report's and top's libsmartcols tables (text_table.h). */
#include "cli/text_table.h"

#include "read/escape.h"

struct libscols_table *latrec_text_table(FILE *out)
{
    struct libscols_table *tb = scols_new_table();
    if (!tb) return NULL;
    scols_table_set_stream(tb, out);
    scols_table_enable_noencoding(tb, 1);
    return tb;
}

void latrec_text_cell(struct libscols_line *ln, int col, const char *text)
{
    char safe[1024];
    scols_line_set_data(ln, (size_t)col, text ? latrec_text_safe_ascii(text, safe, sizeof(safe)) : NULL);
}
