/* The analysis engine: an input and one pass over it, in steps. */
#include "engine/engine.h"

#include <stdio.h>
#include <stdlib.h>

struct latrec_engine {
    latrec_input in;
    latrec_pass *pass;
    int flags, opened, ended;
};

latrec_engine *latrec_engine_open(const latrec_input_opts *opts, const char *cmd, int flags)
{
    latrec_engine *e = calloc(1, sizeof(*e));
    if (!e) {
        fprintf(stderr, "latrec %s: out of memory\n", cmd);
        return NULL;
    }
    e->flags = flags;
    if (latrec_input_open(&e->in, opts, cmd) != 0) {
        latrec_input_close(&e->in);
        free(e);
        return NULL;
    }
    e->opened = 1;
    if (latrec_input_align(&e->in) < 0) {
        latrec_engine_close(e);
        return NULL;
    }
    return e;
}

latrec_input *latrec_engine_input(latrec_engine *e) { return &e->in; }
latrec_pass *latrec_engine_pass(latrec_engine *e) { return e->pass; }

int latrec_engine_start(latrec_engine *e, const latrec_pass_opts *opts, const latrec_pass_sinks *sinks)
{
    if (e->pass) return -1;
    e->pass = latrec_pass_new(&e->in, opts, sinks);
    return e->pass ? 0 : -1;
}

int latrec_engine_step(latrec_engine *e, uint64_t budget)
{
    if (!e->pass || e->ended) return LATREC_ENGINE_END;
    int r = latrec_pass_step(e->pass, budget);
    if (r < 0) return LATREC_ENGINE_ERROR;
    return r ? LATREC_ENGINE_MORE : LATREC_ENGINE_END;
}

void latrec_engine_snapshot(latrec_engine *e, latrec_engine_snap *s)
{
    s->records = e->pass ? latrec_pass_fed(e->pass) : 0;
    s->last_t_ns = e->pass ? latrec_pass_last_t(e->pass) : 0;
    s->begin_ns = e->pass ? latrec_pass_begin(e->pass) : latrec_pass_run_begin(&e->in);
    latrec_input_totals_get(&e->in, &s->totals);
}

int latrec_engine_finish(latrec_engine *e)
{
    if (!e->pass) return -1;
    e->ended = 1;
    return latrec_pass_end(e->pass);
}

int latrec_engine_run(latrec_engine *e)
{
    int r;
    while ((r = latrec_engine_step(e, UINT64_MAX)) == LATREC_ENGINE_MORE)
        ;
    return r == LATREC_ENGINE_ERROR ? -1 : latrec_engine_finish(e);
}

void latrec_engine_close(latrec_engine *e)
{
    if (!e) return;
    latrec_pass_free(e->pass);
    if (e->opened) latrec_input_close(&e->in);
    free(e);
}
