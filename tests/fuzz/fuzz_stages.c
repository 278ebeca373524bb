/*
 * fuzz_stages.c - libFuzzer target for the C-header stage parser
 * (latrec_catalog_add_header: --stages, "stages-from").
 *
 * An input is PREFIX "\n" HEADER: its first line is the enumerator prefix
 * (none when empty), the rest is written as DIR/h.h and parsed. Every stage
 * read must be a C identifier without the prefix, shorter than
 * LATREC_NAME_MAX, and the count returned must match the names set.
 *
 *   fuzz_stages -max_total_time=20 corpus_stages
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <ctype.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyze/catalog.h"

#include "fuzz_tmpdir.h"

#include "fuzz_check.h"

static char path[96];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    const char *dir = fuzz_tmpdir();
    snprintf(path, sizeof path, "%s/h.h", dir);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nl = memchr(data, '\n', size);
    size_t plen = nl ? (size_t)(nl - data) : 0;
    if (plen > 64) plen = 64;
    char prefix[65];
    memcpy(prefix, data, plen);
    prefix[plen] = '\0';
    const uint8_t *text = nl ? nl + 1 : data;
    size_t tlen = size - (size_t)(text - data);

    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    CHECK(fd >= 0);
    CHECK(tlen == 0 || write(fd, text, tlen) == (ssize_t)tlen);
    close(fd);

    latrec_catalog cat;
    latrec_catalog_init(&cat, "fuzz");
    char err[512];
    int added = latrec_catalog_add_header(&cat, path, prefix[0] ? prefix : NULL, err, sizeof err);
    if (added < 0) {
        CHECK(strncmp(err, path, strlen(path)) == 0 && !strchr(err, '\n'));
    } else {
        int named = 0;
        for (unsigned id = 0; id < 256; id++) {
            const char *n = cat.stage_names[id];
            if (!n) continue;
            named++;
            size_t len = strlen(n);
            CHECK(len > 0 && len < LATREC_NAME_MAX);
            for (size_t i = 0; i < len; i++) CHECK(isalnum((unsigned char)n[i]) || n[i] == '_');
        }
        CHECK(named <= added); /* a later enumerator may rename an id */
        CHECK((named > 0) == (added > 0));
    }
    latrec_catalog_free(&cat);
    return 0;
}
