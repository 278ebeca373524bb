/*
 * fuzz_tmpdir.h - a private directory for the fuzz targets that read files
 * by path: made once (on tmpfs when /dev/shm is there), removed at exit.
 */
#ifndef LATREC_FUZZ_TMPDIR_H
#define LATREC_FUZZ_TMPDIR_H

#include <stdio.h>
#include <stdlib.h>

static char fuzz_dir[64];

static void fuzz_tmpdir_remove(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", fuzz_dir);
    if (system(cmd) != 0) return;
}

/* The directory's path (aborts when none can be made). */
static const char *fuzz_tmpdir(void)
{
    snprintf(fuzz_dir, sizeof fuzz_dir, "/dev/shm/latrec-fuzz-XXXXXX");
    if (!mkdtemp(fuzz_dir)) {
        snprintf(fuzz_dir, sizeof fuzz_dir, "/tmp/latrec-fuzz-XXXXXX");
        if (!mkdtemp(fuzz_dir)) abort();
    }
    atexit(fuzz_tmpdir_remove);
    return fuzz_dir;
}

#endif
