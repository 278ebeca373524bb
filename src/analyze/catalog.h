/*
 * analyze/catalog.h - stage catalogs: stage names, legs, extras, keys,
 * joins and component aliases.
 *
 * A stage id (8 bits) means nothing without its catalog. A catalog names
 * stages and defines legs: ordered stage chains keyed by seq within one
 * process. A hop is two consecutive chain stages; the leg total is first to
 * last. Extras are stages stamped for a leg's messages outside its chain
 * (DROP, SKIPPED); an extra hop is a hop between an extra and a chain stage
 * (EMIT_ENTER -> ENQUEUE). Keys name payload fields shown as columns and
 * used by joins (origin_seq = EMIT_ENTER.aux). A join links two legs through
 * equal key values: inside one process (source.seq = outbound.origin_seq) or
 * across processes (outbound.msg_id = inbound.msg_id).
 *
 * The built-in catalog is "e3" (latrec_catalog_e3()). A user catalog is a
 * text file (latrec_catalog_load(), syntax in latrec-format(5) and below) or
 * the stage ids of a C header's enum (latrec_catalog_from_header()).
 *
 * Catalog file syntax, one directive per line, '#' starts a comment:
 *   catalog NAME                      the catalog's name (v3 header field)
 *   stage ID NAME                     ID decimal or 0x hex, 0..255
 *   stages-from HEADER [PREFIX]       every PREFIX<NAME> = <id> of the
 *                                     header's enums (path relative to the
 *                                     catalog file)
 *   leg NAME STAGE [STAGE ...]        a chain of 1..16 stages
 *   extra LEG STAGE [STAGE ...]       extras of a leg
 *   hop LEG FROM TO                   an extra hop of a leg
 *   key LEG COLUMN STAGE.FIELD        FIELD is seq, aux or aux2
 *   bytes LEG STAGE.FIELD             that field counts bytes (--interval)
 *   join LEG.KEY LEG.KEY [process|cross]   a join (default: process);
 *                                     KEY is a key's column or seq
 *   path NAME LEG LEG [LEG ...]       a path: 2..8 distinct legs in order,
 *                                     each consecutive pair linked by a
 *                                     join declared before (the first one
 *                                     declared between the two legs)
 *   component NAME ROLE [ROLE ...]    rings whose role prefix is ROLE
 *                                     belong to component NAME
 * Stages may be named by name or by id. Errors name the file and the line.
 */
#ifndef LATREC_ANALYZE_CATALOG_H
#define LATREC_ANALYZE_CATALOG_H

#include <stddef.h>
#include <stdint.h>

#define LATREC_MAX_CHAIN      16
#define LATREC_MAX_EXTRAS     8
#define LATREC_MAX_EXTRA_HOPS 4
#define LATREC_MAX_KEYS       4
#define LATREC_NAME_MAX       48
#define LATREC_MAX_JOINS      16
#define LATREC_MAX_PATHS      8
#define LATREC_MAX_PATH_LEGS  8

enum latrec_field { LATREC_FIELD_SEQ = 0, LATREC_FIELD_AUX = 1, LATREC_FIELD_AUX2 = 2 };

typedef struct latrec_key {
    char    column[LATREC_NAME_MAX]; /* CSV column / join key name */
    uint8_t stage;
    uint8_t field;                   /* enum latrec_field */
} latrec_key;

typedef struct latrec_leg {
    char    name[LATREC_NAME_MAX];
    uint8_t chain[LATREC_MAX_CHAIN];
    int     n_chain;
    uint8_t extras[LATREC_MAX_EXTRAS];
    int     n_extras;
    struct { uint8_t from, to; } extra_hops[LATREC_MAX_EXTRA_HOPS];
    int     n_extra_hops;
    latrec_key keys[LATREC_MAX_KEYS];
    int     n_keys;
    int     has_bytes;       /* bytes_stage.bytes_field counts bytes */
    uint8_t bytes_stage, bytes_field;
    int     discovered;      /* found in the data, not in the catalog */
} latrec_leg;

typedef struct latrec_join {
    int leg_a, key_a;   /* key index, or -1 for the leg's seq */
    int leg_b, key_b;
    int cross_process;  /* 1: the two legs run in different processes */
} latrec_join;

/* A path: one message followed through n_legs legs. joins[i] (i >= 1) is
 * the catalog join linking legs[i-1] to legs[i]; joins[0] is unused. */
typedef struct latrec_path {
    char name[LATREC_NAME_MAX]; /* "e3/loop" */
    int  n_legs;
    int  legs[LATREC_MAX_PATH_LEGS];
    int  joins[LATREC_MAX_PATH_LEGS];
} latrec_path;

typedef struct latrec_alias {
    char role[LATREC_NAME_MAX];
    char component[LATREC_NAME_MAX];
} latrec_alias;

typedef struct latrec_catalog {
    char         name[32];
    char        *stage_names[256]; /* NULL: the id is not in the catalog */
    latrec_leg  *legs;
    int          n_legs, cap_legs;
    latrec_join  joins[LATREC_MAX_JOINS];
    int          n_joins;
    latrec_path  paths[LATREC_MAX_PATHS];
    int          n_paths;
    latrec_alias *aliases;
    int          n_aliases, cap_aliases;
    /* Modelling mistakes of a loaded catalog (one warning each): stage ids
     * given two names, stage names given to two ids; the first of each. */
    int          dup_ids, dup_names;
    char         dup_id_note[128], dup_name_note[80];
} latrec_catalog;

/* Fill *cat with the built-in E3 catalog (stage names from stages.h, legs as
 * libE3's converter defines them, libE3's component aliases). Returns 0, or
 * -1 when out of memory. Free with latrec_catalog_free(). */
int latrec_catalog_e3(latrec_catalog *cat);

/* Fill *cat with an empty catalog named `name` (no stages, no legs). */
void latrec_catalog_init(latrec_catalog *cat, const char *name);

/* Load a catalog file. Returns 0, or -1 with one line in err
 * ("FILE:LINE: reason", or "FILE: reason") and *cat freed. */
int latrec_catalog_load(latrec_catalog *cat, const char *path, char *err, size_t errlen);

/* Add the stage ids of the C header's enums: every enumerator named
 * PREFIX<NAME> with an explicit value, or following one (value + 1), becomes
 * stage NAME. prefix may be NULL or "" (then every enumerator counts).
 * Values outside 0..255 are skipped. Returns the number of stages added, or
 * -1 with one line in err. */
int latrec_catalog_add_header(latrec_catalog *cat, const char *path, const char *prefix,
                              char *err, size_t errlen);

/* Free what the catalog owns; *cat is left empty. Safe twice. */
void latrec_catalog_free(latrec_catalog *cat);

/* Stage name ("SEND_DONE"), or "0xNN" written into buf (>= 5 bytes) when the
 * catalog has no name for id. */
const char *latrec_catalog_stage_name(const latrec_catalog *cat, unsigned id, char *buf);

/* Stage id of a name, or of "0xNN"/decimal text; -1 when unknown. */
int latrec_catalog_stage_id(const latrec_catalog *cat, const char *name);

/* Index of a leg by name, or -1. */
int latrec_catalog_leg(const latrec_catalog *cat, const char *name);

/* Append a leg (copied). Returns its index, or -1 when out of memory. */
int latrec_catalog_add_leg(latrec_catalog *cat, const latrec_leg *leg);

/* Add a role -> component alias. Returns 0, or -1 when out of memory. */
int latrec_catalog_add_alias(latrec_catalog *cat, const char *role, const char *component);

/* Component of a ring name: the role up to the first dot
 * ("libe3.inbound.42" -> "libe3"), mapped through the aliases
 * ("outbound.7" -> "libe3"). Written into buf (NUL-terminated). */
const char *latrec_catalog_component(const latrec_catalog *cat, const char *ring_name,
                                     char *buf, size_t len);

/* Index of a path by name, or -1. */
int latrec_catalog_path(const latrec_catalog *cat, const char *name);

/* Append path `name` over the n legs (catalog leg indexes), finding the
 * join of each consecutive pair. Returns its index, or -1 with the reason
 * in why ("no join between source and inbound", ...). */
int latrec_catalog_add_path(latrec_catalog *cat, const char *name, const int *legs, int n, char *why,
                            size_t len);

/* Position of stage id in leg's chain, or -1. */
int latrec_leg_chain_pos(const latrec_leg *leg, unsigned id);

/* Position of stage id among leg's extras, or -1. */
int latrec_leg_extra_pos(const latrec_leg *leg, unsigned id);

/* Index of stage id among the hits of an instance of leg (its chain
 * stages, then its extras: analyze/legs.h), or -1. */
int latrec_leg_hit_pos(const latrec_leg *leg, unsigned id);

#endif
