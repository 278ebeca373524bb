/*
 * fuzz_catalog.c - libFuzzer target for the catalog file parser
 * (analyze/catalog_file.c, latrec-format(5) "The catalog file").
 *
 * Each input is written as DIR/c.catalog and loaded; DIR/stages.h (a fixed
 * header) is there for "stages-from stages.h" lines. A loaded catalog is
 * checked: every stage name maps back to its id, every leg to its index,
 * chains and extras name known stages.
 *
 *   fuzz_catalog -max_total_time=20 corpus_catalog
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
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

static const char header[] = "enum app_stage {\n    APP_RX = 0x80, /* RX */\n    APP_PARSE,\n    APP_TX = 0x90,\n};\n"
                             "enum other { OTHER_A = 3, OTHER_B = OTHER_A + 1, OTHER_C, OTHER_D = 7u };\n";

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    const char *dir = fuzz_tmpdir();
    char h[96];
    snprintf(h, sizeof h, "%s/stages.h", dir);
    FILE *f = fopen(h, "w");
    CHECK(f && fputs(header, f) >= 0 && fclose(f) == 0);
    snprintf(path, sizeof path, "%s/c.catalog", dir);
    return 0;
}

static void check_catalog(const latrec_catalog *cat)
{
    CHECK(memchr(cat->name, '\0', sizeof cat->name));
    for (unsigned id = 0; id < 256; id++) {
        const char *n = cat->stage_names[id];
        if (!n) continue;
        CHECK(strlen(n) > 0 && strlen(n) < LATREC_NAME_MAX);
        int back = latrec_catalog_stage_id(cat, n);
        CHECK(back >= 0 && back < 256 && strcmp(cat->stage_names[back], n) == 0);
    }
    CHECK(cat->n_legs >= 0 && cat->n_legs <= cat->cap_legs);
    for (int i = 0; i < cat->n_legs; i++) {
        const latrec_leg *l = &cat->legs[i];
        CHECK(latrec_catalog_leg(cat, l->name) == i);
        CHECK(l->n_chain >= 1 && l->n_chain <= LATREC_MAX_CHAIN);
        for (int c = 0; c < l->n_chain; c++) {
            CHECK(latrec_leg_chain_pos(l, l->chain[c]) == c);
            char buf[8];
            CHECK(latrec_catalog_stage_name(cat, l->chain[c], buf) != NULL);
        }
        CHECK(l->n_extras >= 0 && l->n_extras <= LATREC_MAX_EXTRAS);
        CHECK(l->n_keys >= 0 && l->n_keys <= LATREC_MAX_KEYS);
    }
    for (int j = 0; j < cat->n_joins; j++) {
        CHECK(cat->joins[j].leg_a >= 0 && cat->joins[j].leg_a < cat->n_legs);
        CHECK(cat->joins[j].leg_b >= 0 && cat->joins[j].leg_b < cat->n_legs);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    CHECK(fd >= 0);
    CHECK(size == 0 || write(fd, data, size) == (ssize_t)size);
    close(fd);
    latrec_catalog cat;
    char err[512];
    err[0] = '\0';
    if (latrec_catalog_load(&cat, path, err, sizeof err) == 0) {
        check_catalog(&cat);
        latrec_catalog_free(&cat);
    } else {
        /* one line naming the file */
        CHECK(strncmp(err, path, strlen(path)) == 0 && !strchr(err, '\n'));
    }
    return 0;
}
