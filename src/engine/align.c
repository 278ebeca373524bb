/* --align: the hosts' clocks aligned by the offsets their paths' exchanges
 * give (analyze/clock_offset.h), before the command's own pass. */
#include "engine/align.h"

#include <stdio.h>
#include <string.h>

#include "engine/pass.h"
#include "util/prog.h"

/* Shift the realtime pairs of directory d's rings by -offset: its stamps
 * map to the reference directory's clock. */
static void shift_dir(latrec_input *in, int d, int64_t offset)
{
    for (size_t i = 0; i < in->set.n; i++) {
        latrec_ring *r = &in->set.rings[i];
        if (in->ring_dir[i] != d) continue;
        r->t0_real_ns -= (uint64_t)offset; /* two's complement: adds a negative offset */
        if (r->t1_real_ns) r->t1_real_ns -= (uint64_t)offset;
    }
}

int latrec_input_align(latrec_input *in)
{
    if (!in->opts.align) return 0;
    if (!in->opts.wall || in->opts.n_dirs < 2) {
        fprintf(stderr, "%s: --align needs --wall and the run directories of two hosts or more\n", latrec_prog);
        return -1;
    }
    if (!latrec_path_index_n(in->paths)) { /* any catalog's cross-host paths will do */
        char names[LATREC_LEGS_MAX_CATALOGS * 40] = "";
        for (int c = 0; c < in->n_cats; c++)
            snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s'%s'", c ? ", " : "", in->cats[c]->name);
        fprintf(stderr, "%s: --align: no catalog of the run (%s) has a path to estimate the offsets from\n",
                latrec_prog, names);
        return -1;
    }
    latrec_pass_opts po;
    memset(&po, 0, sizeof(po));
    po.paths = 1;
    po.no_legs = 1;
    latrec_pass_sinks sinks;
    memset(&sinks, 0, sizeof(sinks));
    latrec_pass *p = latrec_pass_run(in, &po, &sinks);
    if (!p) return -1;
    const latrec_offsets *o = latrec_pass_offsets(p);
    for (int d = 1; o && d < in->opts.n_dirs && d < 64; d++) {
        struct latrec_input_align *a = &in->align[d];
        if (!latrec_offsets_get(o, 0, d, &a->shift_ns, &a->bound_ns, &a->consistent, &a->exchanges)) {
            if (!in->opts.quiet)
                fprintf(stderr,
                        "%s: --align: no path goes from %s to %s and back: %s left on its realtime "
                        "pairs\n",
                        latrec_prog, in->opts.dirs[0], in->opts.dirs[d], in->opts.dirs[d]);
            continue;
        }
        a->have = 1;
        shift_dir(in, d, a->shift_ns);
        a->shift_ns = -a->shift_ns;
    }
    in->aligned = 1;
    latrec_pass_free(p);
    return 0;
}

int latrec_align_note(const latrec_input *in, int d, char *buf, size_t len)
{
    if (!in->aligned || d < 1 || d >= in->opts.n_dirs || d >= 64 || !in->align[d].have) return 0;
    const struct latrec_input_align *a = &in->align[d];
    snprintf(buf, len, "%s shifted by %+.3f us (offset to %s estimated within +-%.3f us from %llu exchanges%s)",
             in->opts.dirs[d], (double)a->shift_ns / 1e3, in->opts.dirs[0], (double)a->bound_ns / 1e3,
             (unsigned long long)a->exchanges, a->consistent ? "" : "; not consistent: the smallest round trip's");
    return 1;
}

void latrec_align_print(const latrec_input *in, FILE *out)
{
    char note[1024];
    for (int d = 1; !in->opts.quiet && d < in->opts.n_dirs; d++)
        if (latrec_align_note(in, d, note, sizeof(note))) fprintf(out, "%s: clock alignment: %s\n", latrec_prog, note);
}
