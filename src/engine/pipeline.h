/*
 * engine/pipeline.h - a pass's three stages on two or three threads, in
 * batches, in order (engine/pass.c drives it for a pass run to its end).
 *
 *   stage 1, merge: fill a batch with the next records of the stream;
 *   stage 2, feed:  the leg builder over the batch's records, its ended
 *                   instances copied into the batch;
 *   stage 3, apply: the rest of the pass over what stage 2 left (tables,
 *                   hop values, paths, the caller's sinks).
 *
 * Each stage handles the batches one at a time in stream order, and batch
 * k reaches a stage only after every earlier batch left it, so the output
 * is that of one thread running the stages one after the other. Stage 3
 * always runs on the calling thread (the sinks never see another thread),
 * stage 2 on a second thread, and stage 1 on whichever of them is free
 * (with three threads, the third too): on two cores the two threads carry
 * about half the work each whichever stage is the heavier. Hand-offs are
 * under one mutex; a thread with nothing to do sleeps on a condition
 * variable (no spinning: the cores may be shared).
 *
 * The stages see each other's data only through the batches: what one
 * stage wrote into a batch is visible to the next stage that takes it (the
 * hand-off is a release and an acquire of the mutex). Anything else two
 * stages share must be read-only while the pipeline runs, or published
 * with atomics (the leg builder's leg table: analyze/legs.h).
 */
#ifndef LATREC_ENGINE_PIPELINE_H
#define LATREC_ENGINE_PIPELINE_H

typedef struct latrec_pipe_stages {
    void *ctx;
    /* Fill the batch: 1 (more may follow), 0 (the stream ended: this is
     * the last batch, possibly with records), -1 (error). */
    int (*merge)(void *ctx, void *batch);
    /* last: the batch merge said was the last. 0, or -1 (error). */
    int (*feed)(void *ctx, void *batch, int last);
    /* 0, or -1 (error). */
    int (*apply)(void *ctx, void *batch);
} latrec_pipe_stages;

/* Run the stages over the stream to its end, on n_threads threads (the
 * caller's and n_threads - 1 started here; 1: the caller alone, stage by
 * stage; a thread that cannot be started leaves its stages to the
 * caller), cycling through batches[0..n_batches) (n_batches >= 1; up to
 * n_batches are between stage 1 and the end of stage 3 at once). Returns
 * 0 when every batch went through apply, -1 when a stage failed (the
 * other stages stop at their next batch; every thread is joined). */
int latrec_pipe_run(const latrec_pipe_stages *s, void *const *batches, int n_batches, int n_threads);

#endif
