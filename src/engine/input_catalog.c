/* Each ring's catalog: the one it names, found in the run directory or on
 * the catalog search path (analyze/catalog_path.h), or the one the options
 * give. One ring naming a catalog never changes how other rings are read. */
#include "engine/input.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/catalog_path.h"
#include "analyze/sched_catalog.h"
#include "read/escape.h"
#include "util/prog.h"

struct slot {
    char name[LATREC_CATALOG_LEN + 1]; /* a ring's catalog field, whole */
    char note[4700]; /* how it was chosen, for the header */
    int rings;
    int from_file; /* --catalog FILE fills it */
};

struct pick {
    struct slot s[LATREC_LEGS_MAX_CATALOGS];
    int n, overflow;
};

/* Where a line goes: in->msg (held while the open decides, input.c), or stderr. */
static FILE *msg_out(const latrec_input *in)
{
    return in->msg ? in->msg : stderr;
}

static int slot_of(struct pick *pk, const char *name)
{
    for (int i = 0; i < pk->n; i++)
        if (strcmp(pk->s[i].name, name) == 0) return i;
    if (pk->n == LATREC_LEGS_MAX_CATALOGS) {
        pk->overflow++;
        return 0;
    }
    snprintf(pk->s[pk->n].name, sizeof(pk->s[pk->n].name), "%s", name);
    return pk->n++;
}

/* The catalog a ring names: v3's header field; v1/v2 rings (libE3's) and an
 * empty field mean e3. */
static const char *named_by(const latrec_ring *r)
{
    return r->version >= 3 && r->catalog[0] ? r->catalog : "e3";
}

static int analysed(const latrec_input *in, size_t i)
{
    const latrec_ring *r = &in->set.rings[i];
    return r->status == LATREC_RING_OK && strcmp(r->catalog, LATREC_SCHED_CATALOG) != 0;
}

static latrec_catalog *slot_cat(latrec_input *in, int k)
{
    return k == 0 ? &in->cat : &in->more_cats[k - 1];
}

static void set_note(struct slot *sl, const char *fmt, const char *a, const char *b)
{
    snprintf(sl->note, sizeof(sl->note), fmt, a, b);
}

/* One warning per modelling mistake the catalog file holds. */
static void warn_duplicates(const latrec_input *in, const latrec_catalog *cat, const char *path)
{
    if (in->opts.quiet) return;
    if (cat->dup_ids)
        fprintf(msg_out(in), "%s: %s: catalog '%s': %d stage id%s given two names (first %s)\n", latrec_prog, path,
                cat->name, cat->dup_ids, cat->dup_ids == 1 ? "" : "s", cat->dup_id_note);
    if (cat->dup_names)
        fprintf(msg_out(in),
                "%s: %s: catalog '%s': %d stage name%s given to two ids (first %s; the name means "
                "the lower id)\n",
                latrec_prog, path, cat->name, cat->dup_names, cat->dup_names == 1 ? "" : "s", cat->dup_name_note);
}

/* Slot k's catalog by its name: the run directories of the rings naming
 * it, the search path, else built in (e3) or empty (stages by id). */
static int load_named(latrec_input *in, struct pick *pk, int k)
{
    const char *name = pk->s[k].name;
    const char *dirs[64];
    int n_dirs = 0;
    for (int d = 0; d < in->opts.n_dirs; d++) {
        int names_it = 0;
        for (size_t i = 0; i < in->set.n && !names_it; i++)
            names_it = analysed(in, i) && in->ring_dir[i] == d && strcmp(named_by(&in->set.rings[i]), name) == 0;
        if (names_it) dirs[n_dirs++] = in->opts.dirs[d];
    }
    char path[4400], searched[4600], err[512];
    latrec_catalog *cat = slot_cat(in, k);
    if (latrec_catalog_find(name, dirs, n_dirs, path, sizeof(path), searched, sizeof(searched)) == 0) {
        if (latrec_catalog_load(cat, path, err, sizeof(err)) == 0) {
            set_note(&pk->s[k], "%s (from %s)", cat->name, path);
            snprintf(cat->name, sizeof(cat->name), "%s", name); /* the rings' name for it */
            warn_duplicates(in, cat, path);
            return 0;
        }
        latrec_text_say(msg_out(in), latrec_prog, err); /* then as if not found */
        snprintf(searched, sizeof(searched), "%s, which does not load", path);
    }
    if (strcmp(name, "e3") == 0) {
        if (latrec_catalog_e3(cat) < 0) return -1;
        set_note(&pk->s[k], "%s%s", "e3 (built in)", "");
        return 0;
    }
    /* Whatever bytes the rings' header field holds, shown escaped (read/escape.h):
     * an ESC or a newline in a message, a byte that is not UTF-8 in JSON. */
    char shown[4 * LATREC_CATALOG_LEN + 1];
    latrec_text_safe(name, shown, sizeof(shown));
    latrec_catalog_init(cat, shown);
    set_note(&pk->s[k],
                "%s (named by the rings, not found: stages by id, legs discovered; use --catalog or "
                "record --catalog)%s",
                shown, "");
    if (!in->opts.quiet)
        fprintf(msg_out(in),
                "%s: rings name catalog '%s', which is not built in and not found (searched %s): "
                "stages shown by id, legs discovered (use --catalog FILE, or record --catalog FILE)\n",
                latrec_prog, shown, searched);
    return 0;
}

/* --catalog FILE: the catalog of the rings that name FILE's catalog, or of
 * every ring when none does; --stages HEADER alone: of every ring. Returns
 * 1 when it is every ring's, 0 when only its name's, -1 on error. */
static int load_given(latrec_input *in, struct pick *pk)
{
    const latrec_input_opts *o = &in->opts;
    char err[512];
    latrec_catalog given;
    if (o->catalog_path) {
        if (latrec_catalog_load(&given, o->catalog_path, err, sizeof(err)) < 0) {
            latrec_text_say(msg_out(in), latrec_prog, err);
            return -1;
        }
        warn_duplicates(in, &given, o->catalog_path);
    } else {
        char name[32];
        const char *base = strrchr(o->stages_header, '/');
        base = base ? base + 1 : o->stages_header;
        snprintf(name, sizeof(name), "%.*s", (int)strcspn(base, "."), base);
        latrec_catalog_init(&given, name);
    }
    if (o->stages_header &&
        latrec_catalog_add_header(&given, o->stages_header, o->stage_prefix, err, sizeof(err)) < 0) {
        latrec_text_say(msg_out(in), latrec_prog, err);
        latrec_catalog_free(&given);
        return -1;
    }
    int k = -1;
    for (int i = 0; o->catalog_path && i < pk->n; i++)
        if (strcmp(pk->s[i].name, given.name) == 0) k = i;
    int all = k < 0;
    if (all) { /* one catalog for every ring */
        pk->n = 1;
        snprintf(pk->s[0].name, sizeof(pk->s[0].name), "%s", given.name);
        k = 0;
    }
    pk->s[k].from_file = 1;
    *slot_cat(in, k) = given;
    if (o->catalog_path) set_note(&pk->s[k], "%s (from %s)", given.name, o->catalog_path);
    else set_note(&pk->s[k], "%s (stages from %s, legs discovered)", given.name, o->stages_header);
    return all;
}

int latrec_input_choose_catalogs(latrec_input *in)
{
    struct pick pk;
    memset(&pk, 0, sizeof(pk));
    in->ring_cat = calloc(in->set.n + 1, sizeof(int));
    if (!in->ring_cat) return -1;
    /* Catalog 0: e3 when some ring reads it (the index other code knows),
     * else the first ring's. */
    for (size_t i = 0; i < in->set.n && !pk.n; i++)
        if (analysed(in, i) && strcmp(named_by(&in->set.rings[i]), "e3") == 0) slot_of(&pk, "e3");
    for (size_t i = 0; i < in->set.n; i++)
        if (analysed(in, i)) pk.s[in->ring_cat[i] = slot_of(&pk, named_by(&in->set.rings[i]))].rings++;
    if (pk.n == 0) slot_of(&pk, "e3");
    int all = 0;
    if ((in->opts.catalog_path || in->opts.stages_header) && (all = load_given(in, &pk)) < 0) return -1;
    if (all) memset(in->ring_cat, 0, (in->set.n + 1) * sizeof(int));
    for (int k = 0; k < pk.n; k++)
        if (!pk.s[k].from_file && load_named(in, &pk, k) < 0) return -1;
    in->n_cats = pk.n;
    for (int k = 0; k < pk.n; k++) {
        in->cats[k] = slot_cat(in, k);
        size_t used = strlen(in->catalog_note);
        if (used + 2 < sizeof(in->catalog_note))
            snprintf(in->catalog_note + used, sizeof(in->catalog_note) - used, "%s%s", k ? "; " : "", pk.s[k].note);
    }
    if (pk.overflow && !in->opts.quiet)
        fprintf(msg_out(in), "%s: rings name more than %d catalogs: %d rings read under '%s'\n", latrec_prog,
                LATREC_LEGS_MAX_CATALOGS, pk.overflow, in->cat.name);
    if (!(in->paths = latrec_path_index_new(in->cats, in->n_cats))) {
        fprintf(msg_out(in), "%s: out of memory\n", latrec_prog);
        return -1;
    }
    return 0;
}
