/*
 * consumer_libe3 - source compatibility with libE3's latrec.h: a program
 * written the way libE3 and its users instrument code, with nothing but
 * <latrec/latrec.h> included (built with -std=c11, no feature macros).
 *
 *   consumer_libe3 DIR
 *
 * Writes, in a fresh process, into DIR:
 *   oai.<tid>.latrec   the main thread's ring: 4 loops of
 *                      RECORD_BEGIN (seq s, tstamp_at) / EMIT_ENTER (seq q,
 *                      aux = latrec_ctx() = s, aux2 = RAN function 142) /
 *                      SEND_DONE (seq q, aux = message id 1000 + q),
 *                      then DROP (aux2 = DROP_FILTERED), SKIPPED (aux2 =
 *                      SKIP_COALESCED), ADMITTED (aux2 = OUT_SHED_AGE):
 *                      15 records, seqs from latrec_seq_next() = 1..11
 *   libe3.pub.latrec   an explicit ring: REPORT_QUEUED, heartbeat,
 *                      REPORT_DONE (stamp_at), close
 *   oai.explicit.latrec latrec_open() into the output directory: 1 record
 * Exit status 0, or the number of the check that failed. test_writer_compat
 * runs it and reads the files back.
 */
#include <latrec/latrec.h>

#define RAN_FUNCTION_KPM 142u

/* what a libE3 producer's emit path looks like: the seq it carries arrives
 * through latrec_ctx(), the enqueue seq is fresh */
static uint64_t e3_emit(void)
{
    const uint64_t q = latrec_seq_next();
    latrec_tstamp(q, LATREC_EMIT_ENTER, latrec_ctx(), RAN_FUNCTION_KPM);
    /* ... encode, send ... */
    latrec_tstamp(q, LATREC_SEND_DONE, 1000u + q, 0);
    return q;
}

static int oai_source_loop(void)
{
    for (unsigned k = 0; k < 4; k++) {
        const uint64_t s = latrec_seq_next();
        const uint64_t t_rec = latrec_tnow(); /* the instant that matters */
        /* ... build the indication ... */
        latrec_tstamp_at(s, LATREC_RECORD_BEGIN, k, 0, t_rec);
        latrec_ctx_set(s);
        if (latrec_ctx() != s) return 10;
        if (e3_emit() != s + 1) return 11;
    }
    latrec_tstamp(latrec_seq_next(), LATREC_DROP, 0, LATREC_DROP_FILTERED);
    latrec_tstamp(latrec_seq_next(), LATREC_SKIPPED, 0, LATREC_SKIP_COALESCED);
    latrec_tstamp(latrec_seq_next(), LATREC_ADMITTED, 0, LATREC_OUT_SHED_AGE);
    return 0;
}

int main(int argc, char **argv)
{
    if (sizeof(latrec_hdr) != 4096 || sizeof(latrec_rec) != 32) return 2;
    if (argc < 2) return 3;
    latrec_set_output_dir(argv[1]);
    latrec_set_catalog("e3");

    latrec_t *me = latrec_tls_open_as("oai");
    if (!me || !me->enabled || latrec_tls != me) return 5;
    if (latrec_tls_open_as("oai") != me || latrec_tls_open() != me) return 6;
    const int rc = oai_source_loop();
    if (rc) return rc;

    latrec_t pub;
    if (latrec_open_in(&pub, argv[1], "libe3.pub", 12) != 1) return 20;
    latrec_stamp(&pub, 1, LATREC_REPORT_QUEUED, 7, 0);
    latrec_heartbeat(&pub);
    latrec_stamp_at(&pub, 1, LATREC_REPORT_DONE, 7, 0, latrec_tnow());
    latrec_close(&pub);

    latrec_t other;
    if (latrec_open(&other, "oai.explicit", 10) != 1) return 21;
    latrec_stamp(&other, 5, LATREC_CONTEXT, 3, 0);
    latrec_close(&other);
    return 0; /* the oai ring is flushed at exit */
}
