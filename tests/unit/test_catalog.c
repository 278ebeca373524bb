/*
 * test_catalog.c - stage catalogs: the built-in E3 catalog, the catalog
 * text file (every directive, every error with FILE:LINE and its reason),
 * stage ids read from a C header's enums, and component aliases.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analyze/catalog.h"

#define TMPDIR LATREC_TEST_TMP "/catalog"
#define CATALOGS LATREC_TEST_FIXTURES "/catalogs"

static char pbuf[512];

static const char *P(const char *rel)
{
    snprintf(pbuf, sizeof pbuf, TMPDIR "/%s", rel);
    return pbuf;
}

static void put_file(const char *rel, const char *text)
{
    FILE *f = fopen(P(rel), "w");
    assert_non_null(f);
    assert_true(fputs(text, f) >= 0);
    assert_int_equal(fclose(f), 0);
}

static int setup(void **state)
{
    (void)state;
    mkdir(LATREC_TEST_TMP, 0755);
    if (system("rm -rf '" TMPDIR "'") != 0)
        return -1;
    return mkdir(TMPDIR, 0755);
}

/* ---- built-in E3 catalog ---------------------------------------------------- */

static void test_e3_catalog_stages(void **state)
{
    (void)state;
    latrec_catalog cat;
    char buf[8];
    assert_int_equal(latrec_catalog_e3(&cat), 0);
    assert_string_equal(cat.name, "e3");
    /* a few ids straight from ring-format.md's table */
    assert_string_equal(latrec_catalog_stage_name(&cat, 0x10, buf), "RECORD_BEGIN");
    assert_string_equal(latrec_catalog_stage_name(&cat, 0x24, buf), "SEND_DONE");
    assert_string_equal(latrec_catalog_stage_name(&cat, 0x2F, buf), "DROP");
    assert_string_equal(latrec_catalog_stage_name(&cat, 0x4B, buf), "ACK_RECV");
    assert_string_equal(latrec_catalog_stage_name(&cat, 0x72, buf), "CONTEXT");
    /* not in the catalog: 0xNN */
    assert_string_equal(latrec_catalog_stage_name(&cat, 0xA0, buf), "0xA0");
    assert_string_equal(latrec_catalog_stage_name(&cat, 0x00, buf), "0x00");
    assert_string_equal(latrec_catalog_stage_name(&cat, 0xFF, buf), "0xFF");
    /* stage ids by name, by hex and by decimal */
    assert_int_equal(latrec_catalog_stage_id(&cat, "ENQUEUE"), 0x21);
    assert_int_equal(latrec_catalog_stage_id(&cat, "0x21"), 0x21);
    assert_int_equal(latrec_catalog_stage_id(&cat, "33"), 33);
    assert_int_equal(latrec_catalog_stage_id(&cat, "0xA0"), 0xA0);
    assert_int_equal(latrec_catalog_stage_id(&cat, "NO_SUCH_STAGE"), -1);
    assert_int_equal(latrec_catalog_stage_id(&cat, "256"), -1);
    assert_int_equal(latrec_catalog_stage_id(&cat, "-1"), -1);
    assert_int_equal(latrec_catalog_stage_id(&cat, ""), -1);
    latrec_catalog_free(&cat);
}

/* The E3 catalog's legs: chains, extras, hops, keys, bytes. */
static void test_e3_catalog_legs(void **state)
{
    (void)state;
    latrec_catalog cat;
    assert_int_equal(latrec_catalog_e3(&cat), 0);
    /* the source and outbound legs as libE3 defines them */
    int src = latrec_catalog_leg(&cat, "source");
    int out = latrec_catalog_leg(&cat, "outbound");
    int in = latrec_catalog_leg(&cat, "inbound");
    assert_true(src >= 0 && out >= 0 && in >= 0);
    const latrec_leg *l = &cat.legs[src];
    assert_int_equal(l->n_chain, 4);
    assert_int_equal(l->chain[0], 0x10);
    assert_int_equal(l->chain[1], 0x11);
    assert_int_equal(l->chain[2], 0x18);
    assert_int_equal(l->chain[3], 0x19);
    assert_int_equal(latrec_leg_extra_pos(l, 0x70), 0); /* WAIT_ENTER */
    assert_int_equal(latrec_leg_extra_pos(l, 0x71), 1); /* SKIPPED */
    assert_int_equal(l->n_extra_hops, 1);
    assert_int_equal(l->extra_hops[0].from, 0x19);
    assert_int_equal(l->extra_hops[0].to, 0x70);
    l = &cat.legs[out];
    assert_int_equal(l->n_chain, 4);
    assert_int_equal(latrec_leg_chain_pos(l, 0x21), 0);
    assert_int_equal(latrec_leg_chain_pos(l, 0x24), 3);
    assert_int_equal(latrec_leg_chain_pos(l, 0x20), -1);
    assert_int_equal(latrec_leg_extra_pos(l, 0x20), 0);
    assert_int_equal(latrec_leg_extra_pos(l, 0x2F), 1);
    assert_int_equal(l->n_keys, 2);
    assert_string_equal(l->keys[0].column, "origin_seq");
    assert_int_equal(l->keys[0].stage, 0x20);
    assert_int_equal(l->keys[0].field, LATREC_FIELD_AUX);
    assert_string_equal(l->keys[1].column, "msg_id");
    assert_int_equal(l->keys[1].stage, 0x24);
    assert_true(l->has_bytes);
    assert_int_equal(l->bytes_stage, 0x23);
    /* DROP is an extra of outbound, inbound and session */
    assert_int_equal(latrec_leg_extra_pos(&cat.legs[in], 0x2F), 0);
    assert_int_equal(latrec_leg_extra_pos(&cat.legs[latrec_catalog_leg(&cat, "session")], 0x2F), 0);
    latrec_catalog_free(&cat);
}

/* The E3 catalog's joins and paths. */
static void test_e3_catalog_joins_paths(void **state)
{
    (void)state;
    latrec_catalog cat;
    assert_int_equal(latrec_catalog_e3(&cat), 0);
    const int src = latrec_catalog_leg(&cat, "source"), out = latrec_catalog_leg(&cat, "outbound");
    const int in = latrec_catalog_leg(&cat, "inbound");
    /* joins: source.seq = outbound.origin_seq (process), outbound.msg_id =
     * inbound.msg_id (cross), then the ones the E3 paths add: inbound.seq =
     * deliver.seq, inbound.seq = consume.seq (process), consume.ctrl_id =
     * apply_ctrl.seq (cross) */
    assert_int_equal(cat.n_joins, 5);
    assert_int_equal(cat.joins[0].leg_a, src);
    assert_int_equal(cat.joins[0].key_a, -1);
    assert_int_equal(cat.joins[0].leg_b, out);
    assert_int_equal(cat.joins[0].key_b, 0);
    assert_int_equal(cat.joins[0].cross_process, 0);
    assert_int_equal(cat.joins[1].leg_a, out);
    assert_int_equal(cat.joins[1].key_a, 1);
    assert_int_equal(cat.joins[1].leg_b, in);
    assert_int_equal(cat.joins[1].key_b, 0);
    assert_int_equal(cat.joins[1].cross_process, 1);
    const int consume = latrec_catalog_leg(&cat, "consume"), apply = latrec_catalog_leg(&cat, "apply_ctrl");
    assert_int_equal(cat.joins[4].leg_a, consume);
    assert_int_equal(cat.joins[4].key_a, 0);
    assert_string_equal(cat.legs[consume].keys[0].column, "ctrl_id");
    assert_int_equal(cat.legs[consume].keys[0].stage, 0x41); /* CREATE_OUTPUT.aux */
    assert_int_equal(cat.joins[4].leg_b, apply);
    assert_int_equal(cat.joins[4].key_b, -1);
    assert_int_equal(cat.joins[4].cross_process, 1);
    /* paths: the e3loop workload's loop and libE3's indication path */
    assert_int_equal(cat.n_paths, 2);
    const latrec_path *loop = &cat.paths[latrec_catalog_path(&cat, "e3/loop")];
    const char *loop_legs[] = { "source", "outbound", "inbound", "consume", "apply_ctrl" };
    assert_int_equal(loop->n_legs, 5);
    for (int i = 0; i < 5; i++) assert_string_equal(cat.legs[loop->legs[i]].name, loop_legs[i]);
    assert_int_equal(loop->joins[1], 0);
    assert_int_equal(loop->joins[2], 1);
    assert_int_equal(loop->joins[3], 3);
    assert_int_equal(loop->joins[4], 4);
    const latrec_path *ind = &cat.paths[latrec_catalog_path(&cat, "e3/indication")];
    assert_int_equal(ind->n_legs, 4);
    assert_string_equal(cat.legs[ind->legs[3]].name, "deliver");
    assert_int_equal(ind->joins[3], 2);
    latrec_catalog_free(&cat);
    latrec_catalog_free(&cat); /* safe twice */
    assert_int_equal(cat.n_legs, 0);
}

/* ---- component aliases -------------------------------------------------------- */

static void test_component_aliases(void **state)
{
    (void)state;
    latrec_catalog cat;
    char buf[LATREC_NAME_MAX];
    assert_int_equal(latrec_catalog_e3(&cat), 0);
    assert_string_equal(latrec_catalog_component(&cat, "libe3.inbound.42", buf, sizeof buf), "libe3");
    assert_string_equal(latrec_catalog_component(&cat, "outbound.7", buf, sizeof buf), "libe3");
    assert_string_equal(latrec_catalog_component(&cat, "inbound.8", buf, sizeof buf), "libe3");
    assert_string_equal(latrec_catalog_component(&cat, "gnb.1", buf, sizeof buf), "oai");
    assert_string_equal(latrec_catalog_component(&cat, "mac.3", buf, sizeof buf), "oai");
    assert_string_equal(latrec_catalog_component(&cat, "jbpf.4", buf, sizeof buf), "ocudu");
    assert_string_equal(latrec_catalog_component(&cat, "ex.limits", buf, sizeof buf), "libe3");
    assert_string_equal(latrec_catalog_component(&cat, "myrole.9", buf, sizeof buf), "myrole");
    assert_string_equal(latrec_catalog_component(&cat, "libe3.pub", buf, sizeof buf), "libe3");
    assert_string_equal(latrec_catalog_component(&cat, "solo", buf, sizeof buf), "solo");
    assert_string_equal(latrec_catalog_component(&cat, ".7", buf, sizeof buf), "unnamed");
    /* the output is cut to the buffer and stays NUL-terminated */
    char small[4];
    assert_string_equal(latrec_catalog_component(&cat, "myrole.9", small, sizeof small), "myr");
    /* a role longer than a name is cut, never overruns */
    char longname[200];
    memset(longname, 'r', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    assert_int_equal(strlen(latrec_catalog_component(&cat, longname, buf, sizeof buf)), LATREC_NAME_MAX - 1);
    latrec_catalog_free(&cat);

    /* an empty catalog maps every role to itself; a user alias overrides */
    latrec_catalog_init(&cat, "mine");
    assert_string_equal(latrec_catalog_component(&cat, "outbound.7", buf, sizeof buf), "outbound");
    assert_int_equal(latrec_catalog_add_alias(&cat, "outbound", "net"), 0);
    assert_string_equal(latrec_catalog_component(&cat, "outbound.7", buf, sizeof buf), "net");
    latrec_catalog_free(&cat);
}

/* ---- the catalog file ----------------------------------------------------------- */

/* full.catalog's legs: chains, extras, the hop, keys and bytes. */
static void check_full_legs(const latrec_catalog *cat)
{
    const latrec_leg *w = &cat->legs[0];
    assert_string_equal(w->name, "work");
    assert_int_equal(w->n_chain, 3);
    assert_int_equal(w->chain[0], 0x10);
    assert_int_equal(w->chain[1], 17);
    assert_int_equal(w->chain[2], 0xFF);
    assert_int_equal(w->n_extras, 3);
    assert_int_equal(w->extras[0], 0x2F);
    assert_int_equal(w->extras[1], 0);
    assert_int_equal(w->extras[2], 0x30);
    assert_int_equal(w->n_extra_hops, 1);
    assert_int_equal(w->extra_hops[0].from, 0x2F);
    assert_int_equal(w->extra_hops[0].to, 0xFF);
    assert_int_equal(w->n_keys, 2);
    assert_string_equal(w->keys[0].column, "origin");
    assert_int_equal(w->keys[0].stage, 0x10);
    assert_int_equal(w->keys[0].field, LATREC_FIELD_AUX);
    assert_string_equal(w->keys[1].column, "seen");
    assert_int_equal(w->keys[1].stage, 0xFF);
    assert_int_equal(w->keys[1].field, LATREC_FIELD_SEQ);
    assert_false(w->has_bytes);
    assert_false(w->discovered);

    const latrec_leg *a = &cat->legs[1];
    assert_string_equal(a->name, "app");
    assert_int_equal(a->n_chain, 3);
    assert_int_equal(a->chain[0], 0x80);
    assert_int_equal(a->chain[1], 0x81);
    assert_int_equal(a->chain[2], 0x90);
    assert_int_equal(a->n_keys, 1);
    assert_int_equal(a->keys[0].field, LATREC_FIELD_AUX2);
    assert_true(a->has_bytes);
    assert_int_equal(a->bytes_stage, 0x81);
    assert_int_equal(a->bytes_field, LATREC_FIELD_AUX);
    assert_int_equal(cat->legs[2].n_chain, 1);
    assert_int_equal(cat->legs[2].chain[0], 0);
}

/* full.catalog's joins and component aliases. */
static void check_full_joins(const latrec_catalog *cat)
{
    assert_int_equal(cat->n_joins, 3);
    assert_int_equal(cat->joins[0].leg_a, 0);
    assert_int_equal(cat->joins[0].key_a, 0);
    assert_int_equal(cat->joins[0].leg_b, 1);
    assert_int_equal(cat->joins[0].key_b, -1);
    assert_int_equal(cat->joins[0].cross_process, 0);
    assert_int_equal(cat->joins[1].leg_a, 1);
    assert_int_equal(cat->joins[1].key_a, 0);
    assert_int_equal(cat->joins[1].leg_b, 0);
    assert_int_equal(cat->joins[1].key_b, 1);
    assert_int_equal(cat->joins[1].cross_process, 1);
    assert_int_equal(cat->joins[2].key_a, -1);
    assert_int_equal(cat->joins[2].key_b, -1);
    assert_int_equal(cat->joins[2].cross_process, 0);

    char comp[LATREC_NAME_MAX];
    assert_string_equal(latrec_catalog_component(cat, "roleA.1", comp, sizeof comp), "mycomp");
    assert_string_equal(latrec_catalog_component(cat, "roleB.2", comp, sizeof comp), "mycomp");
    assert_string_equal(latrec_catalog_component(cat, "roleC.3", comp, sizeof comp), "roleC");
}

static void test_file_every_directive(void **state)
{
    (void)state;
    mkdir(P("inc"), 0755);
    put_file("inc/app_stages.h",
             "enum app_stage {\n"
             "    APP_RX = 0x80, /* received */\n"
             "    APP_PARSE,     // 0x81\n"
             "    APP_TX = 0x90,\n"
             "};\n");
    put_file("full.catalog",
             "# every directive once (or more)\n"
             "catalog   myapp   # trailing comment\n"
             "\n"
             "stage 0x10 BEGIN\n"
             "stage 17 MIDDLE\n"
             "stage 0xFF END\n"
             "\tstage 0 ZERO\n"
             "stages-from inc/app_stages.h APP_\n"
             "leg work BEGIN MIDDLE END\n"
             "leg app RX PARSE 0x90\n"
             "leg one ZERO\n"
             "extra work 0x2F ZERO\n"
             "extra work 0x30\n"
             "hop work 0x2F END\n"
             "key work origin BEGIN.aux\n"
             "key work seen END.seq\n"
             "key app peer TX.aux2\n"
             "bytes app PARSE.aux\n"
             "join work.origin app.seq\n"
             "join app.peer work.seen cross\n"
             "join app.seq work.seq process\n"
             "component mycomp roleA roleB\n");
    latrec_catalog cat;
    char err[512] = "";
    char buf[8];
    assert_int_equal(latrec_catalog_load(&cat, P("full.catalog"), err, sizeof err), 0);
    assert_string_equal(err, "");
    assert_string_equal(cat.name, "myapp");
    assert_string_equal(latrec_catalog_stage_name(&cat, 0x10, buf), "BEGIN");
    assert_string_equal(latrec_catalog_stage_name(&cat, 17, buf), "MIDDLE");
    assert_string_equal(latrec_catalog_stage_name(&cat, 0xFF, buf), "END");
    assert_string_equal(latrec_catalog_stage_name(&cat, 0, buf), "ZERO");
    assert_string_equal(latrec_catalog_stage_name(&cat, 0x80, buf), "RX");
    assert_string_equal(latrec_catalog_stage_name(&cat, 0x81, buf), "PARSE");
    assert_string_equal(latrec_catalog_stage_name(&cat, 0x90, buf), "TX");
    assert_string_equal(latrec_catalog_stage_name(&cat, 0x2F, buf), "0x2F");
    assert_int_equal(cat.n_legs, 3);
    check_full_legs(&cat);
    check_full_joins(&cat);
    latrec_catalog_free(&cat);
}

/* Without a `catalog` line the name is the file name up to its first dot. */
static void test_file_default_name(void **state)
{
    (void)state;
    put_file("plain.v2.catalog", "stage 1 ONE\n");
    latrec_catalog cat;
    char err[256];
    assert_int_equal(latrec_catalog_load(&cat, P("plain.v2.catalog"), err, sizeof err), 0);
    assert_string_equal(cat.name, "plain");
    assert_int_equal(cat.n_legs, 0);
    latrec_catalog_free(&cat);
}

struct bad_case {
    const char *text;
    int line;
    const char *what; /* "DIRECTIVE: reason" after "FILE:LINE: " */
};

static const struct bad_case bad_cases[] = {
    { "stage 1 A\nfrobnicate x\n", 2, "frobnicate: unknown directive" },
    { "# comment\n\nstage 1 A\nleg l A B\n", 4, "leg: unknown stage" },
    { "stage 1 A\nleg l A\nextra l NOPE\n", 3, "extra: unknown stage" },
    { "stage 1 A\nleg l A\nhop l A NOPE\n", 3, "hop: unknown stage" },
    { "stage 1 A\nleg l A\nkey l k NOPE.aux\n", 3, "key: unknown stage" },
    { "stage 256 A\n", 1, "stage: stage id must be 0..255" },
    { "stage -1 A\n", 1, "stage: stage id must be 0..255" },
    { "stage 0x1G A\n", 1, "stage: stage id must be 0..255" },
    { "stage ten A\n", 1, "stage: stage id must be 0..255" },
    { "stage 1\n", 1, "stage: usage: stage ID NAME" },
    { "stage 1 A\nextra nope A\n", 2, "extra: unknown leg" },
    { "stage 1 A\nhop nope A A\n", 2, "hop: unknown leg" },
    { "stage 1 A\nkey nope k A.aux\n", 2, "key: unknown leg" },
    { "stage 1 A\nbytes nope A.aux\n", 2, "bytes: unknown leg" },
    { "stage 1 A\nleg l A\njoin l.seq nope.seq\n", 3, "join: unknown leg" },
    { "stage 1 A\nstage 2 B\nleg l A\nleg l B\n", 4, "leg: leg defined twice" },
    { "stage 1 A\nleg l A A\n", 2, "leg: stage twice in one chain" },
    { "stage 1 A\nleg l A\nkey l k A.aux3\n", 3, "key: field must be seq, aux or aux2" },
    { "stage 1 A\nleg l A\nkey l k A\n", 3, "key: expected STAGE.FIELD" },
    { "stage 1 A\nleg l A\njoin l.k l.seq\n", 3, "join: unknown key (declare it with 'key' first)" },
    { "stage 1 A\nleg l A\njoin l.seq l.seq both\n", 3, "join: join scope must be process or cross" },
    { "stage 1 A\nleg l A\nextra l 1 2 3 4 5 6 7 8 9\n", 3, "extra: too many extras (8 at most)" },
    { "leg l\n", 1, "leg: usage: leg NAME STAGE [STAGE ...] (1..16 stages)" },
    { "leg l 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17\n", 1,
      "leg: usage: leg NAME STAGE [STAGE ...] (1..16 stages)" },
    { "catalog\n", 1, "catalog: usage: catalog NAME" },
    { "catalog a_catalog_name_of_32_bytes_long2\n", 1, "catalog: catalog name too long (31 bytes at most)" },
    { "component solo\n", 1, "component: usage: component NAME ROLE [ROLE ...]" },
    /* more words than a line may hold: refused, never silently cut */
    { "component c r1 r2 r3 r4 r5 r6 r7 r8 r9 r10 r11 r12 r13 r14 r15 r16 r17 r18 r19 r20 r21 r22 r23\n", 1,
      "component: too many words on one line (24 at most)" },
};

static void test_file_errors(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
        char rel[32], want[1024], err[1024] = "";
        snprintf(rel, sizeof rel, "bad%zu.catalog", i);
        put_file(rel, bad_cases[i].text);
        char path[512];
        snprintf(path, sizeof path, "%s", P(rel));
        snprintf(want, sizeof want, "%s:%d: %s", path, bad_cases[i].line, bad_cases[i].what);
        latrec_catalog cat;
        memset(&cat, 0x5A, sizeof cat);
        if (latrec_catalog_load(&cat, path, err, sizeof err) != -1)
            fail_msg("case %zu loaded", i);
        if (strcmp(err, want) != 0)
            fail_msg("case %zu:\n got  '%s'\n want '%s'", i, err, want);
        /* freed and left empty */
        assert_int_equal(cat.n_legs, 0);
        assert_null(cat.legs);
        assert_null(cat.stage_names[1]);
    }
}

static void test_file_missing(void **state)
{
    (void)state;
    latrec_catalog cat;
    char err[512];
    assert_int_equal(latrec_catalog_load(&cat, P("nope.catalog"), err, sizeof err), -1);
    char want[1024];
    snprintf(want, sizeof want, "%s: No such file or directory", P("nope.catalog"));
    assert_string_equal(err, want);

    /* stages-from naming a missing header: the line, then the header */
    put_file("hdr.catalog", "catalog h\nstages-from missing.h\n");
    char path[512];
    snprintf(path, sizeof path, "%s", P("hdr.catalog"));
    assert_int_equal(latrec_catalog_load(&cat, path, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s:2: stages-from: " TMPDIR "/missing.h: No such file or directory", path);
    assert_string_equal(err, want);
}

/* A line longer than the parser's buffer is refused with its number. */
static void test_file_long_line(void **state)
{
    (void)state;
    char *text = malloc(10000);
    assert_non_null(text);
    strcpy(text, "stage 1 A\n# ");
    size_t n = strlen(text);
    memset(text + n, 'x', 9000);
    strcpy(text + n + 9000, "\nstage 2 B\n");
    put_file("long.catalog", text);
    free(text);
    latrec_catalog cat;
    char err[1024], want[1024], path[512];
    snprintf(path, sizeof path, "%s", P("long.catalog"));
    assert_int_equal(latrec_catalog_load(&cat, path, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s:2: line too long", path);
    assert_string_equal(err, want);
}

/* ---- C header enums ---------------------------------------------------------------- */

static void test_header_prefix(void **state)
{
    (void)state;
    put_file("stages.h",
             "/* enum { MY_IN_BLOCK_COMMENT = 5 }; */\n"
             "// enum { MY_IN_LINE_COMMENT = 6 };\n"
             "#define MY_NOT_ENUM 7\n"
             "int enumerate(void);\n"
             "typedef enum my_stage {\n"
             "    MY_FIRST,                /* implicit 0 */\n"
             "    MY_SECOND,               // 1\n"
             "    MY_RX = 0x20,            /* explicit */\n"
             "    MY_PARSE,                /* 0x21 */\n"
             "    MY_QUEUE,                /* 0x22 */\n"
             "    OTHER_THING = 0x30,      /* no prefix: skipped, but counts */\n"
             "    MY_AFTER_OTHER,          /* 0x31 */\n"
             "    MY_BIG = 300,            /* out of range: skipped */\n"
             "    MY_BIG_NEXT,             /* 301: skipped */\n"
             "    MY_EXPR = 1 << 6,        /* not a plain number: unknown */\n"
             "    MY_AFTER_EXPR,           /* unknown too */\n"
             "    MY_TX = 040,             /* octal 32 */\n"
             "    MY_DONE = 0x41u,         /* suffix */\n"
             "    MY_LAST                  /* 0x42, no trailing comma */\n"
             "} my_stage;\n"
             "enum { MY_SECOND_ENUM = 0x50, MY_SE2 };\n");
    latrec_catalog cat;
    char err[256] = "", buf[8];
    latrec_catalog_init(&cat, "hdr");
    int n = latrec_catalog_add_header(&cat, P("stages.h"), "MY_", err, sizeof err);
    assert_string_equal(err, "");
    /* FIRST SECOND RX PARSE QUEUE AFTER_OTHER TX DONE LAST SECOND_ENUM SE2 */
    assert_int_equal(n, 11);
    assert_string_equal(latrec_catalog_stage_name(&cat, 0, buf), "FIRST");
    assert_string_equal(latrec_catalog_stage_name(&cat, 1, buf), "SECOND");
    assert_string_equal(latrec_catalog_stage_name(&cat, 0x20, buf), "TX"); /* 040 overrides RX */
    assert_string_equal(latrec_catalog_stage_name(&cat, 0x21, buf), "PARSE");
    assert_string_equal(latrec_catalog_stage_name(&cat, 0x22, buf), "QUEUE");
    assert_string_equal(latrec_catalog_stage_name(&cat, 0x30, buf), "0x30");
    assert_string_equal(latrec_catalog_stage_name(&cat, 0x31, buf), "AFTER_OTHER");
    assert_string_equal(latrec_catalog_stage_name(&cat, 0x41, buf), "DONE");
    assert_string_equal(latrec_catalog_stage_name(&cat, 0x42, buf), "LAST");
    assert_string_equal(latrec_catalog_stage_name(&cat, 0x50, buf), "SECOND_ENUM");
    assert_string_equal(latrec_catalog_stage_name(&cat, 0x51, buf), "SE2");
    assert_string_equal(latrec_catalog_stage_name(&cat, 5, buf), "0x05");
    assert_string_equal(latrec_catalog_stage_name(&cat, 6, buf), "0x06");
    assert_string_equal(latrec_catalog_stage_name(&cat, 7, buf), "0x07");
    assert_string_equal(latrec_catalog_stage_name(&cat, 64, buf), "0x40"); /* 1 << 6 unknown */
    assert_string_equal(latrec_catalog_stage_name(&cat, 65, buf), "DONE");
    for (int id = 0; id < 256; id++)
        if (cat.stage_names[id]) assert_int_equal(strncmp(cat.stage_names[id], "MY_", 3) != 0, 1);
    latrec_catalog_free(&cat);

    /* without a prefix every enumerator counts, names kept whole */
    latrec_catalog_init(&cat, "hdr");
    n = latrec_catalog_add_header(&cat, P("stages.h"), NULL, err, sizeof err);
    assert_int_equal(n, 12);
    assert_string_equal(latrec_catalog_stage_name(&cat, 0x30, buf), "OTHER_THING");
    assert_string_equal(latrec_catalog_stage_name(&cat, 0x21, buf), "MY_PARSE");
    latrec_catalog_free(&cat);
}

/* Two enums on one line, and enumerators too long to be stage names. */
static void test_header_edges(void **state)
{
    (void)state;
    put_file("packed.h",
             "enum a { P_ONE = 1, P_TWO };enum b { P_TEN = 10 };enum{P_TWENTY=20};\n"
             "enum c { P_AN_ENUMERATOR_NAME_FAR_TOO_LONG_TO_BE_A_STAGE_NAME_AT_ALL = 30, P_AFTER };\n");
    latrec_catalog cat;
    char err[256] = "", buf[8];
    latrec_catalog_init(&cat, "x");
    assert_int_equal(latrec_catalog_add_header(&cat, P("packed.h"), "P_", err, sizeof err), 5);
    assert_string_equal(latrec_catalog_stage_name(&cat, 1, buf), "ONE");
    assert_string_equal(latrec_catalog_stage_name(&cat, 2, buf), "TWO");
    assert_string_equal(latrec_catalog_stage_name(&cat, 10, buf), "TEN");
    assert_string_equal(latrec_catalog_stage_name(&cat, 20, buf), "TWENTY");
    assert_string_equal(latrec_catalog_stage_name(&cat, 30, buf), "0x1E");
    assert_string_equal(latrec_catalog_stage_name(&cat, 31, buf), "AFTER");
    latrec_catalog_free(&cat);
}

/* Values at the ends of a long: no overflow computing the next implicit
 * value (UBSan checks it), every out-of-range one skipped, an implicit
 * value after a negative one counted up into range. */
static void test_header_extreme_values(void **state)
{
    (void)state;
    put_file("extreme.h", "enum q { Q_BIG = 0x7fffffffffffffff, Q_NEXT, Q_HUGE = 99999999999999999999,\n"
                          "         Q_AFTER, Q_NEG = -2, Q_M1, Q_Z, Q_O, Q_TOP = 255, Q_PAST };\n");
    latrec_catalog cat;
    char err[256] = "", buf[8];
    latrec_catalog_init(&cat, "x");
    assert_int_equal(latrec_catalog_add_header(&cat, P("extreme.h"), "Q_", err, sizeof err), 3);
    assert_string_equal(latrec_catalog_stage_name(&cat, 0, buf), "Z");
    assert_string_equal(latrec_catalog_stage_name(&cat, 1, buf), "O");
    assert_string_equal(latrec_catalog_stage_name(&cat, 255, buf), "TOP");
    latrec_catalog_free(&cat);
}

static void test_header_errors(void **state)
{
    (void)state;
    put_file("noenum.h", "#define A 1\nint enumerations;\n/* enum { X = 1 }; */\n");
    latrec_catalog cat;
    char err[1024], want[1024];
    latrec_catalog_init(&cat, "x");
    assert_int_equal(latrec_catalog_add_header(&cat, P("noenum.h"), NULL, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s: no enum found", P("noenum.h"));
    assert_string_equal(err, want);
    assert_int_equal(latrec_catalog_add_header(&cat, P("absent.h"), NULL, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s: No such file or directory", P("absent.h"));
    assert_string_equal(err, want);
    /* an enum whose enumerators all miss the prefix adds nothing */
    put_file("other.h", "enum { A = 1, B };\n");
    assert_int_equal(latrec_catalog_add_header(&cat, P("other.h"), "MY_", err, sizeof err), 0);
    latrec_catalog_free(&cat);
}

/* ---- the fixture catalogs ------------------------------------------------------------- */

static void test_fixture_early_catalog(void **state)
{
    (void)state;
    latrec_catalog cat;
    char err[512] = "", buf[8];
    assert_int_equal(latrec_catalog_load(&cat, CATALOGS "/libe3-early.catalog", err, sizeof err), 0);
    assert_string_equal(cat.name, "libe3-early");
    assert_string_equal(latrec_catalog_stage_name(&cat, 0x30, buf), "L0_ENQUEUE");
    assert_string_equal(latrec_catalog_stage_name(&cat, 0x31, buf), "L1_DEQUEUE");
    assert_string_equal(latrec_catalog_stage_name(&cat, 0x32, buf), "L2_ENCODE_DONE");
    assert_string_equal(latrec_catalog_stage_name(&cat, 0x33, buf), "L3_SENT");
    assert_string_equal(latrec_catalog_stage_name(&cat, 0x39, buf), "L9_DROP");
    assert_int_equal(cat.n_legs, 1);
    const latrec_leg *l = &cat.legs[0];
    assert_string_equal(l->name, "outbound");
    assert_int_equal(l->n_chain, 4);
    for (int i = 0; i < 4; i++) assert_int_equal(l->chain[i], 0x30 + i);
    assert_int_equal(l->n_extras, 1);
    assert_int_equal(l->extras[0], 0x39);
    assert_string_equal(l->keys[0].column, "msg_id");
    assert_int_equal(l->keys[0].stage, 0x33);
    assert_int_equal(l->keys[0].field, LATREC_FIELD_AUX);
    assert_true(l->has_bytes);
    assert_int_equal(l->bytes_stage, 0x32);
    assert_int_equal(l->bytes_field, LATREC_FIELD_AUX);
    char comp[LATREC_NAME_MAX];
    assert_string_equal(latrec_catalog_component(&cat, "enq.19247", comp, sizeof comp), "libe3");
    assert_string_equal(latrec_catalog_component(&cat, "pub", comp, sizeof comp), "libe3");
    assert_string_equal(latrec_catalog_component(&cat, "libe3.enq.19247", comp, sizeof comp), "libe3");
    latrec_catalog_free(&cat);

    latrec_catalog_init(&cat, "h");
    assert_int_equal(latrec_catalog_add_header(&cat, CATALOGS "/libe3_early_stages.h", "E3_", err, sizeof err), 5);
    assert_string_equal(latrec_catalog_stage_name(&cat, 0x30, buf), "L0_ENQUEUE");
    assert_string_equal(latrec_catalog_stage_name(&cat, 0x31, buf), "L1_DEQUEUE");
    assert_string_equal(latrec_catalog_stage_name(&cat, 0x32, buf), "L2_ENCODE_DONE");
    assert_string_equal(latrec_catalog_stage_name(&cat, 0x33, buf), "L3_SENT");
    assert_string_equal(latrec_catalog_stage_name(&cat, 0x39, buf), "L9_DROP");
    assert_string_equal(latrec_catalog_stage_name(&cat, 0x77, buf), "0x77");
    assert_string_equal(latrec_catalog_stage_name(&cat, 0x78, buf), "0x78");
    latrec_catalog_free(&cat);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_e3_catalog_stages),
        cmocka_unit_test(test_e3_catalog_legs),
        cmocka_unit_test(test_e3_catalog_joins_paths),
        cmocka_unit_test(test_component_aliases),
        cmocka_unit_test(test_file_every_directive),
        cmocka_unit_test(test_file_default_name),
        cmocka_unit_test(test_file_errors),
        cmocka_unit_test(test_file_missing),
        cmocka_unit_test(test_file_long_line),
        cmocka_unit_test(test_header_prefix),
        cmocka_unit_test(test_header_edges),
        cmocka_unit_test(test_header_extreme_values),
        cmocka_unit_test(test_header_errors),
        cmocka_unit_test(test_fixture_early_catalog),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
