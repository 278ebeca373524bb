/* User catalogs: the catalog text file and stage ids read from a C header. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/catalog.h"
#include "read/input_file.h"

static void set_err(char *err, size_t len, const char *fmt, ...)
{
    if (!err || !len) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, len, fmt, ap);
    va_end(ap);
}

/* A text input file whole (a regular file within `limit`, no NUL byte),
 * NUL-terminated; NULL with one line in err. */
static char *slurp(const char *path, size_t limit, const char *what, char *err, size_t errlen)
{
    char *text;
    size_t len;
    if (latrec_input_file_read(path, limit, what, &text, &len, err, errlen) != 0) return NULL;
    if (strlen(text) != len) {
        set_err(err, errlen, "%s: a NUL byte at offset %zu: not a text file", path, strlen(text));
        free(text);
        return NULL;
    }
    return text;
}

/* A modelling mistake kept for one warning: an id given a second name, or
 * a name given to a second id (the name then means the first id only). */
static void note_duplicate(latrec_catalog *cat, long id, const char *name)
{
    if (cat->stage_names[id] && strcmp(cat->stage_names[id], name) != 0 && !cat->dup_ids++)
        snprintf(cat->dup_id_note, sizeof(cat->dup_id_note), "0x%02X: %s, then %s", (unsigned)id,
                 cat->stage_names[id], name);
    for (int j = 0; j < 256; j++)
        if (j != id && cat->stage_names[j] && strcmp(cat->stage_names[j], name) == 0) {
            if (!cat->dup_names++)
                snprintf(cat->dup_name_note, sizeof(cat->dup_name_note), "%s: 0x%02X and 0x%02X", name, j,
                         (unsigned)id);
            break;
        }
}

static int set_stage(latrec_catalog *cat, long id, const char *name, size_t name_len)
{
    char *copy = strndup(name, name_len);
    if (!copy) return -1;
    note_duplicate(cat, id, copy);
    free(cat->stage_names[id]);
    cat->stage_names[id] = copy;
    return 0;
}

/* Blank out comments (keeping newlines) so the enum scan sees code only. */
static void strip_comments(char *s)
{
    for (char *p = s; *p; p++) {
        if (p[0] == '/' && p[1] == '*') {
            char *e = strstr(p + 2, "*/");
            char *stop = e ? e + 2 : p + strlen(p);
            for (; p < stop; p++) if (*p != '\n') *p = ' ';
            p--;
        } else if (p[0] == '/' && p[1] == '/') {
            for (; *p && *p != '\n'; p++) *p = ' ';
            if (!*p) break;
        }
    }
}

static int is_ident(int c) { return isalnum(c) || c == '_'; }

int latrec_catalog_add_header(latrec_catalog *cat, const char *path, const char *prefix,
                              char *err, size_t errlen)
{
    char *text = slurp(path, LATREC_HEADER_FILE_MAX, "stage header", err, errlen);
    if (!text) return -1;
    strip_comments(text);
    size_t plen = prefix ? strlen(prefix) : 0;
    int added = 0, enums = 0;
    for (char *p = text, *next_p; (p = strstr(p, "enum")) != NULL; p = next_p) {
        next_p = p + 4;
        if ((p > text && is_ident((unsigned char)p[-1])) || is_ident((unsigned char)p[4])) continue;
        char *open = p + 4;
        while (*open && (isspace((unsigned char)*open) || is_ident((unsigned char)*open))) open++;
        if (*open != '{') continue;
        char *close = strchr(open, '}');
        if (!close) break;
        *close = '\0';
        next_p = close + 1; /* the next enum may follow right after: "};enum {" */
        enums++;
        long next = 0;
        int known = 1;
        for (char *item = open + 1; item && *item;) {
            char *comma = strchr(item, ',');
            if (comma) *comma = '\0';
            while (isspace((unsigned char)*item)) item++;
            char *name = item;
            while (is_ident((unsigned char)*item)) item++;
            size_t nlen = (size_t)(item - name);
            while (isspace((unsigned char)*item)) item++;
            long value = next;
            if (*item == '=') {
                char *end;
                errno = 0;
                value = strtol(item + 1, &end, 0);
                while (*end == 'u' || *end == 'U' || *end == 'l' || *end == 'L') end++;
                while (isspace((unsigned char)*end)) end++;
                known = !errno && end != item + 1 && *end == '\0';
            }
            /* a stage name is at most LATREC_NAME_MAX - 1 bytes, like in a
             * catalog file; a longer enumerator cannot be one: skipped */
            if (nlen && known && value >= 0 && value < 256 && nlen > plen && nlen - plen < LATREC_NAME_MAX &&
                (!plen || strncmp(name, prefix, plen) == 0)) {
                if (set_stage(cat, value, name + plen, nlen - plen) < 0) {
                    free(text);
                    set_err(err, errlen, "%s: out of memory", path);
                    return -1;
                }
                added++;
            }
            /* past 255 every implicit successor is out of range too (and
             * value + 1 could overflow a strtol() that saturated) */
            next = value >= 256 ? 256 : value + 1;
            item = comma ? comma + 1 : NULL;
        }
        p = close;
    }
    free(text);
    if (!enums) {
        set_err(err, errlen, "%s: no enum found", path);
        return -1;
    }
    return added;
}

/* ---- catalog text file ---------------------------------------------------- */

#define MAX_WORDS 24

/* Words of a line into w; -1 when it holds more than MAX_WORDS (never cut
 * silently: a role or stage past the limit would just vanish). */
static int split_words(char *line, char **w)
{
    char *hash = strchr(line, '#');
    if (hash) *hash = '\0';
    int n = 0;
    for (char *tok = strtok(line, " \t\r\n"); tok; tok = strtok(NULL, " \t\r\n")) {
        if (n == MAX_WORDS) return -1;
        w[n++] = tok;
    }
    return n;
}

/* The first control byte (0x00-0x1f but tab, 0x7f) in the words, or -1. */
static int control_byte(char **w, int n)
{
    for (int i = 0; i < n; i++)
        for (const unsigned char *c = (const unsigned char *)w[i]; *c; c++)
            if (*c < 0x20 || *c == 0x7f) return *c;
    return -1;
}

static int parse_field(const char *s, uint8_t *field)
{
    if (strcmp(s, "seq") == 0) *field = LATREC_FIELD_SEQ;
    else if (strcmp(s, "aux") == 0) *field = LATREC_FIELD_AUX;
    else if (strcmp(s, "aux2") == 0) *field = LATREC_FIELD_AUX2;
    else return -1;
    return 0;
}

/* "STAGE.FIELD" into stage and field; error text on failure. */
static const char *parse_stage_field(const latrec_catalog *cat, char *s, uint8_t *stage, uint8_t *field)
{
    char *dot = strrchr(s, '.');
    if (!dot) return "expected STAGE.FIELD";
    *dot = '\0';
    int id = latrec_catalog_stage_id(cat, s);
    if (id < 0) return "unknown stage";
    if (parse_field(dot + 1, field) < 0) return "field must be seq, aux or aux2";
    *stage = (uint8_t)id;
    return NULL;
}

/* "LEG.KEY" into leg index and key index (-1 for seq). */
static const char *parse_leg_key(const latrec_catalog *cat, char *s, int *leg, int *key)
{
    char *dot = strchr(s, '.');
    if (!dot) return "expected LEG.KEY";
    *dot = '\0';
    if ((*leg = latrec_catalog_leg(cat, s)) < 0) return "unknown leg";
    if (strcmp(dot + 1, "seq") == 0) { *key = -1; return NULL; }
    const latrec_leg *l = &cat->legs[*leg];
    for (int i = 0; i < l->n_keys; i++)
        if (strcmp(l->keys[i].column, dot + 1) == 0) { *key = i; return NULL; }
    return "unknown key (declare it with 'key' first)";
}

/* "path NAME LEG LEG [LEG ...]": NULL or the reason it is wrong (in buf). */
static const char *path_directive(latrec_catalog *cat, char **w, int n, char *buf, size_t len)
{
    if (n < 4 || n - 2 > LATREC_MAX_PATH_LEGS) return "usage: path NAME LEG LEG [LEG ...] (2..8 legs)";
    int legs[LATREC_MAX_PATH_LEGS];
    for (int i = 2; i < n; i++)
        if ((legs[i - 2] = latrec_catalog_leg(cat, w[i])) < 0) return "unknown leg";
    if (latrec_catalog_add_path(cat, w[1], legs, n - 2, buf, len) < 0) return buf;
    return NULL;
}

/* leg NAME STAGE [STAGE ...] */
static const char *leg_directive(latrec_catalog *cat, char **w, int n)
{
    if (n < 3 || n - 2 > LATREC_MAX_CHAIN) return "usage: leg NAME STAGE [STAGE ...] (1..16 stages)";
    if (strlen(w[1]) >= LATREC_NAME_MAX) return "leg name too long";
    if (latrec_catalog_leg(cat, w[1]) >= 0) return "leg defined twice";
    latrec_leg leg;
    memset(&leg, 0, sizeof(leg));
    snprintf(leg.name, sizeof(leg.name), "%s", w[1]);
    for (int i = 2; i < n; i++) {
        int id = latrec_catalog_stage_id(cat, w[i]);
        if (id < 0) return "unknown stage";
        if (latrec_leg_chain_pos(&leg, (unsigned)id) >= 0) return "stage twice in one chain";
        leg.chain[leg.n_chain++] = (uint8_t)id;
    }
    if (latrec_catalog_add_leg(cat, &leg) < 0) return "out of memory";
    return NULL;
}

/* extra LEG STAGE [STAGE ...] */
static const char *extra_directive(latrec_catalog *cat, char **w, int n)
{
    if (n < 3) return "usage: extra LEG STAGE [STAGE ...]";
    int li = latrec_catalog_leg(cat, w[1]);
    if (li < 0) return "unknown leg";
    latrec_leg *leg = &cat->legs[li];
    for (int i = 2; i < n; i++) {
        int id = latrec_catalog_stage_id(cat, w[i]);
        if (id < 0) return "unknown stage";
        if (leg->n_extras == LATREC_MAX_EXTRAS) return "too many extras (8 at most)";
        leg->extras[leg->n_extras++] = (uint8_t)id;
    }
    return NULL;
}

/* hop LEG FROM TO */
static const char *hop_directive(latrec_catalog *cat, char **w, int n)
{
    if (n != 4) return "usage: hop LEG FROM TO";
    int li = latrec_catalog_leg(cat, w[1]);
    if (li < 0) return "unknown leg";
    latrec_leg *leg = &cat->legs[li];
    int a = latrec_catalog_stage_id(cat, w[2]), b = latrec_catalog_stage_id(cat, w[3]);
    if (a < 0 || b < 0) return "unknown stage";
    if (leg->n_extra_hops == LATREC_MAX_EXTRA_HOPS) return "too many extra hops (4 at most)";
    leg->extra_hops[leg->n_extra_hops].from = (uint8_t)a;
    leg->extra_hops[leg->n_extra_hops++].to = (uint8_t)b;
    return NULL;
}

/* key LEG COLUMN STAGE.FIELD */
static const char *key_directive(latrec_catalog *cat, char **w, int n)
{
    if (n != 4) return "usage: key LEG COLUMN STAGE.FIELD";
    int li = latrec_catalog_leg(cat, w[1]);
    if (li < 0) return "unknown leg";
    latrec_leg *leg = &cat->legs[li];
    if (leg->n_keys == LATREC_MAX_KEYS) return "too many keys (4 at most)";
    if (strlen(w[2]) >= LATREC_NAME_MAX) return "key name too long";
    latrec_key *k = &leg->keys[leg->n_keys];
    const char *why = parse_stage_field(cat, w[3], &k->stage, &k->field);
    if (why) return why;
    snprintf(k->column, sizeof(k->column), "%s", w[2]);
    leg->n_keys++;
    return NULL;
}

/* bytes LEG STAGE.FIELD */
static const char *bytes_directive(latrec_catalog *cat, char **w, int n)
{
    if (n != 3) return "usage: bytes LEG STAGE.FIELD";
    int li = latrec_catalog_leg(cat, w[1]);
    if (li < 0) return "unknown leg";
    latrec_leg *leg = &cat->legs[li];
    const char *why = parse_stage_field(cat, w[2], &leg->bytes_stage, &leg->bytes_field);
    if (why) return why;
    leg->has_bytes = 1;
    return NULL;
}

/* join LEG.KEY LEG.KEY [process|cross] */
static const char *join_directive(latrec_catalog *cat, char **w, int n)
{
    if (n < 3 || n > 4) return "usage: join LEG.KEY LEG.KEY [process|cross]";
    if (cat->n_joins == LATREC_MAX_JOINS) return "too many joins (16 at most)";
    latrec_join *j = &cat->joins[cat->n_joins];
    const char *why = parse_leg_key(cat, w[1], &j->leg_a, &j->key_a);
    if (!why) why = parse_leg_key(cat, w[2], &j->leg_b, &j->key_b);
    if (why) return why;
    j->cross_process = 0;
    if (n == 4) {
        if (strcmp(w[3], "cross") == 0) j->cross_process = 1;
        else if (strcmp(w[3], "process") != 0) return "join scope must be process or cross";
    }
    cat->n_joins++;
    return NULL;
}

/* stage ID NAME */
static const char *stage_directive(latrec_catalog *cat, char **w, int n)
{
    if (n != 3) return "usage: stage ID NAME";
    char *end;
    long id = strtol(w[1], &end, 0);
    if (*end || id < 0 || id > 255) return "stage id must be 0..255";
    if (strlen(w[2]) >= LATREC_NAME_MAX) return "stage name too long";
    if (set_stage(cat, id, w[2], strlen(w[2])) < 0) return "out of memory";
    return NULL;
}

/* stages-from HEADER [PREFIX]: a header's failure is the reason itself, and
 * a hard one (*hard). */
static const char *stages_from_directive(latrec_catalog *cat, char **w, int n, const char *dir_of_file,
                                         char *err, size_t errlen, int *hard)
{
    if (n < 2 || n > 3) return "usage: stages-from HEADER [PREFIX]";
    char path[8200];
    if (w[1][0] == '/') snprintf(path, sizeof(path), "%s", w[1]);
    else snprintf(path, sizeof(path), "%s/%s", dir_of_file, w[1]);
    if (latrec_catalog_add_header(cat, path, n == 3 ? w[2] : NULL, err, errlen) < 0) {
        *hard = 1;
        return err;
    }
    return NULL;
}

/* One directive; NULL or the reason it is wrong. */
static const char *directive(latrec_catalog *cat, char **w, int n, const char *dir_of_file,
                             char *err, size_t errlen, int *hard)
{
    const char *d = w[0];
    if (strcmp(d, "catalog") == 0) {
        if (n != 2) return "usage: catalog NAME";
        if (strlen(w[1]) >= sizeof(cat->name)) return "catalog name too long (31 bytes at most)";
        snprintf(cat->name, sizeof(cat->name), "%s", w[1]);
        return NULL;
    }
    if (strcmp(d, "stage") == 0) return stage_directive(cat, w, n);
    if (strcmp(d, "stages-from") == 0) return stages_from_directive(cat, w, n, dir_of_file, err, errlen, hard);
    if (strcmp(d, "leg") == 0) return leg_directive(cat, w, n);
    if (strcmp(d, "extra") == 0) return extra_directive(cat, w, n);
    if (strcmp(d, "hop") == 0) return hop_directive(cat, w, n);
    if (strcmp(d, "key") == 0) return key_directive(cat, w, n);
    if (strcmp(d, "bytes") == 0) return bytes_directive(cat, w, n);
    if (strcmp(d, "join") == 0) return join_directive(cat, w, n);
    if (strcmp(d, "path") == 0) return path_directive(cat, w, n, err, errlen);
    if (strcmp(d, "component") == 0) {
        if (n < 3) return "usage: component NAME ROLE [ROLE ...]";
        for (int i = 2; i < n; i++)
            if (latrec_catalog_add_alias(cat, w[i], w[1]) < 0) return "out of memory";
        return NULL;
    }
    return "unknown directive";
}

int latrec_catalog_load(latrec_catalog *cat, const char *path, char *err, size_t errlen)
{
    const char *slash = strrchr(path, '/');
    char dir[4096];
    if (slash) snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
    else snprintf(dir, sizeof(dir), ".");
    const char *base = slash ? slash + 1 : path;
    char name[32];
    snprintf(name, sizeof(name), "%.*s", (int)strcspn(base, "."), base);
    latrec_catalog_init(cat, name);

    char *text = slurp(path, LATREC_CATALOG_FILE_MAX, "catalog file", err, errlen);
    if (!text) {
        latrec_catalog_free(cat);
        return -1;
    }
    char line[4096], sub[512];
    int lineno = 0;
    for (const char *p = text; *p;) {
        lineno++;
        size_t n = strcspn(p, "\n");
        if (n >= sizeof(line)) {
            set_err(err, errlen, "%s:%d: line too long", path, lineno);
            goto fail;
        }
        memcpy(line, p, n);
        line[n] = '\0';
        p += n + (p[n] == '\n');
        char *w[MAX_WORDS];
        int nw = split_words(line, w);
        if (nw < 0) {
            set_err(err, errlen, "%s:%d: %s: too many words on one line (%d at most)", path, lineno, w[0],
                    MAX_WORDS);
            goto fail;
        }
        if (nw == 0) continue;
        int bad = control_byte(w, nw);
        if (bad >= 0) { /* names go to terminals and JSON as they are */
            set_err(err, errlen, "%s:%d: a control character (0x%02x) in a word", path, lineno, bad);
            goto fail;
        }
        int hard = 0;
        const char *why = directive(cat, w, nw, dir, sub, sizeof(sub), &hard);
        if (why) {
            set_err(err, errlen, "%s:%d: %s%s%s", path, lineno, w[0][0] ? w[0] : "", ": ", why);
            goto fail;
        }
    }
    free(text);
    return 0;
fail:
    free(text);
    latrec_catalog_free(cat);
    return -1;
}
