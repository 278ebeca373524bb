/* Stage catalogs: the model, lookups, and the built-in E3 catalog. */
#include "analyze/catalog.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "latrec/stages.h"

void latrec_catalog_init(latrec_catalog *cat, const char *name)
{
    memset(cat, 0, sizeof(*cat));
    snprintf(cat->name, sizeof(cat->name), "%s", name ? name : "");
}

void latrec_catalog_free(latrec_catalog *cat)
{
    for (int i = 0; i < 256; i++) free(cat->stage_names[i]);
    free(cat->legs);
    free(cat->aliases);
    memset(cat, 0, sizeof(*cat));
}

const char *latrec_catalog_stage_name(const latrec_catalog *cat, unsigned id, char *buf)
{
    if (id < 256 && cat->stage_names[id]) return cat->stage_names[id];
    snprintf(buf, 5, "0x%02X", id & 0xFF);
    return buf;
}

int latrec_catalog_stage_id(const latrec_catalog *cat, const char *name)
{
    for (int i = 0; i < 256; i++)
        if (cat->stage_names[i] && strcmp(cat->stage_names[i], name) == 0) return i;
    char *end;
    unsigned long v = strtoul(name, &end, 0);
    if (*name && !*end && v < 256) return (int)v;
    return -1;
}

int latrec_catalog_leg(const latrec_catalog *cat, const char *name)
{
    for (int i = 0; i < cat->n_legs; i++)
        if (strcmp(cat->legs[i].name, name) == 0) return i;
    return -1;
}

int latrec_catalog_add_leg(latrec_catalog *cat, const latrec_leg *leg)
{
    if (cat->n_legs == cat->cap_legs) {
        int cap = cat->cap_legs ? cat->cap_legs * 2 : 32;
        latrec_leg *legs = realloc(cat->legs, (size_t)cap * sizeof(*legs));
        if (!legs) return -1;
        cat->legs = legs;
        cat->cap_legs = cap;
    }
    cat->legs[cat->n_legs] = *leg;
    return cat->n_legs++;
}

int latrec_catalog_add_alias(latrec_catalog *cat, const char *role, const char *component)
{
    if (cat->n_aliases == cat->cap_aliases) {
        int cap = cat->cap_aliases ? cat->cap_aliases * 2 : 32;
        latrec_alias *a = realloc(cat->aliases, (size_t)cap * sizeof(*a));
        if (!a) return -1;
        cat->aliases = a;
        cat->cap_aliases = cap;
    }
    latrec_alias *a = &cat->aliases[cat->n_aliases++];
    snprintf(a->role, sizeof(a->role), "%s", role);
    snprintf(a->component, sizeof(a->component), "%s", component);
    return 0;
}

const char *latrec_catalog_component(const latrec_catalog *cat, const char *ring_name,
                                     char *buf, size_t len)
{
    size_t n = strcspn(ring_name, ".");
    char role[LATREC_NAME_MAX];
    if (n >= sizeof(role)) n = sizeof(role) - 1;
    memcpy(role, ring_name, n);
    role[n] = '\0';
    for (int i = 0; i < cat->n_aliases; i++)
        if (strcmp(cat->aliases[i].role, role) == 0) {
            snprintf(buf, len, "%s", cat->aliases[i].component);
            return buf;
        }
    snprintf(buf, len, "%s", role[0] ? role : "unnamed");
    return buf;
}

int latrec_catalog_path(const latrec_catalog *cat, const char *name)
{
    for (int i = 0; i < cat->n_paths; i++)
        if (strcmp(cat->paths[i].name, name) == 0) return i;
    return -1;
}

/* The first join declared between legs a and b (either way round), or -1. */
static int join_between(const latrec_catalog *cat, int a, int b)
{
    for (int j = 0; j < cat->n_joins; j++) {
        const latrec_join *jn = &cat->joins[j];
        if ((jn->leg_a == a && jn->leg_b == b) || (jn->leg_a == b && jn->leg_b == a)) return j;
    }
    return -1;
}

static int path_error(char *why, size_t len, const char *msg)
{
    snprintf(why, len, "%s", msg);
    return -1;
}

int latrec_catalog_add_path(latrec_catalog *cat, const char *name, const int *legs, int n, char *why,
                            size_t len)
{
    if (cat->n_paths == LATREC_MAX_PATHS) return path_error(why, len, "too many paths (8 at most)");
    if (n < 2 || n > LATREC_MAX_PATH_LEGS) return path_error(why, len, "a path has 2..8 legs");
    if (strlen(name) >= LATREC_NAME_MAX) return path_error(why, len, "path name too long");
    if (strpbrk(name, ": \t,\"") || !name[0]) return path_error(why, len, "a path name has no ':', ',', quote or blank");
    if (latrec_catalog_path(cat, name) >= 0) return path_error(why, len, "path defined twice");
    latrec_path p;
    memset(&p, 0, sizeof(p));
    snprintf(p.name, sizeof(p.name), "%s", name);
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < i; k++)
            if (legs[k] == legs[i]) return path_error(why, len, "leg twice in one path");
        p.legs[i] = legs[i];
        if (i == 0) continue;
        p.joins[i] = join_between(cat, legs[i - 1], legs[i]);
        if (p.joins[i] < 0) {
            snprintf(why, len, "no join between %s and %s (declare one with 'join')", cat->legs[legs[i - 1]].name,
                     cat->legs[legs[i]].name);
            return -1;
        }
    }
    p.n_legs = n;
    cat->paths[cat->n_paths] = p;
    return cat->n_paths++;
}

int latrec_leg_chain_pos(const latrec_leg *leg, unsigned id)
{
    for (int i = 0; i < leg->n_chain; i++)
        if (leg->chain[i] == id) return i;
    return -1;
}

int latrec_leg_extra_pos(const latrec_leg *leg, unsigned id)
{
    for (int i = 0; i < leg->n_extras; i++)
        if (leg->extras[i] == id) return i;
    return -1;
}

int latrec_leg_hit_pos(const latrec_leg *leg, unsigned id)
{
    int i = latrec_leg_chain_pos(leg, id);
    if (i < 0 && (i = latrec_leg_extra_pos(leg, id)) >= 0) i += leg->n_chain;
    return i;
}

/* ---- the built-in E3 catalog --------------------------------------------- */

#define END 0xFFFF
struct e3_leg_def {
    const char *name;
    unsigned chain[6];
    unsigned extras[3];
};

/* Legs as libE3's own converter defines them: same names, same chains. */
static const struct e3_leg_def e3_legs[] = {
    { "source", { LATREC_RECORD_BEGIN, LATREC_PROCESS_BEGIN, LATREC_ENCODE_E3SM_BEGIN,
                  LATREC_ENCODE_E3SM_DONE, END }, { LATREC_WAIT_ENTER, LATREC_SKIPPED, END } },
    { "outbound", { LATREC_ENQUEUE, LATREC_DEQUEUE, LATREC_ENCODE_E3AP_DONE, LATREC_SEND_DONE, END },
      { LATREC_EMIT_ENTER, LATREC_DROP, END } },
    { "inbound", { LATREC_RECV, LATREC_DECODE_E3AP_DONE, END }, { LATREC_DROP, END } },
    { "deliver", { LATREC_DELIVER_BEGIN, LATREC_DELIVER_DONE, END }, { END } },
    { "report_q", { LATREC_REPORT_QUEUED, LATREC_REPORT_DONE, END }, { END } },
    { "session", { LATREC_SESSION_QUEUED, LATREC_SESSION_POLLED, END }, { LATREC_DROP, END } },
    { "consume", { LATREC_DECODE_E3SM_BEGIN, LATREC_DECODE_E3SM_DONE, LATREC_PROCESS_DONE,
                   LATREC_CREATE_OUTPUT, END }, { LATREC_ADMITTED, END } },
    { "apply_ctrl", { LATREC_APPLY_CONTROL_DONE, LATREC_LIVE_ON_AIR, END }, { END } },
    { "apply_pol", { LATREC_APPLY_POLICY_DONE, END }, { END } },
    { "ack", { LATREC_ACK_SENT, LATREC_ACK_RECV, END }, { END } },
    { "setup", { LATREC_SETUP_BEGIN, LATREC_SETUP_DONE, END }, { END } },
    { "subscribe", { LATREC_SUB_BEGIN, LATREC_SUB_DONE, END }, { END } },
    { "sm_start", { LATREC_SM_START, END }, { END } },
    { "sm_stop", { LATREC_SM_STOP, END }, { END } },
    { "sm_status", { LATREC_SM_STATUS_BEGIN, LATREC_SM_STATUS_DONE, END }, { END } },
    { "bridge", { LATREC_BRIDGE_IN, LATREC_BRIDGE_OUT, END }, { END } },
    { "e2ap_out", { LATREC_ENCODE_E2AP_BEGIN, LATREC_ENCODE_E2AP_DONE, END }, { END } },
    { "e2ap_in", { LATREC_DECODE_E2AP_BEGIN, LATREC_DECODE_E2AP_DONE, END }, { END } },
    { "e2sm_in", { LATREC_DECODE_E2SM_BEGIN, LATREC_DECODE_E2SM_DONE, LATREC_XAPP_PROCESS_DONE, END },
      { END } },
    { "e2sm_out", { LATREC_ENCODE_E2SM_BEGIN, LATREC_ENCODE_E2SM_DONE, END }, { END } },
    { "context", { LATREC_CONTEXT, END }, { END } },
};

/* libE3's component aliases: component, then the roles that map to it. */
static const char *const e3_aliases[][10] = {
    { "oai", "oai", "gnb", "phy", "mac", "l1_kpm", "spectrum", NULL },
    { "ocudu", "ocudu", "jbpf", "e3controller", NULL },
    { "cubb", "cubb", "aerial", NULL },
    { "dapp", "dapp", NULL },
    { "xapp", "xapp", "xdevsm", NULL },
    { "flexric", "flexric", "e2agent", "ric", NULL },
    { "examples", "sm_simple", "bench", NULL },
    { "libe3", "libe3", "outbound", "inbound", "report", "setup", "session", "context", NULL },
    { "libe3", "ex", "ctx", NULL },
};

static void add_key(latrec_leg *leg, const char *column, unsigned stage, unsigned field)
{
    latrec_key *k = &leg->keys[leg->n_keys++];
    snprintf(k->column, sizeof(k->column), "%s", column);
    k->stage = (uint8_t)stage;
    k->field = (uint8_t)field;
}

/* The E3 paths. One message of the loop: the RAN's source leg hands its
 * seq to emit() (outbound.origin_seq = EMIT_ENTER.aux), libE3 sends it with
 * a message id (SEND_DONE.aux) that the dApp's inbound leg decodes
 * (DECODE_E3AP_DONE.aux); the dApp delivers it on the inbound seq (deliver,
 * consume), and the control it creates (CREATE_OUTPUT.aux = control id)
 * comes back as the RAN's apply_ctrl leg, keyed by that id, until
 * LIVE_ON_AIR. "e3/indication" stops at the dApp's delivery (libE3's
 * indication path); "e3/loop" is the closed loop of the bundled e3loop
 * workload. */
static int e3_paths(latrec_catalog *cat)
{
    int source = latrec_catalog_leg(cat, "source"), outbound = latrec_catalog_leg(cat, "outbound"),
        inbound = latrec_catalog_leg(cat, "inbound"), deliver = latrec_catalog_leg(cat, "deliver"),
        consume = latrec_catalog_leg(cat, "consume"), apply = latrec_catalog_leg(cat, "apply_ctrl");
    cat->joins[cat->n_joins++] = (latrec_join){ inbound, -1, deliver, -1, 0 };
    cat->joins[cat->n_joins++] = (latrec_join){ inbound, -1, consume, -1, 0 };
    cat->joins[cat->n_joins++] = (latrec_join){ consume, 0, apply, -1, 1 };
    const int loop[] = { source, outbound, inbound, consume, apply };
    const int ind[] = { source, outbound, inbound, deliver };
    char why[160];
    if (latrec_catalog_add_path(cat, "e3/loop", loop, 5, why, sizeof(why)) < 0) return -1;
    if (latrec_catalog_add_path(cat, "e3/indication", ind, 4, why, sizeof(why)) < 0) return -1;
    return 0;
}

int latrec_catalog_e3(latrec_catalog *cat)
{
    latrec_catalog_init(cat, "e3");
#define E3_NAME_(name, id) if (!(cat->stage_names[id] = strdup(#name))) goto oom;
    LATREC_E3_STAGES(E3_NAME_)
#undef E3_NAME_
    for (size_t i = 0; i < sizeof(e3_legs) / sizeof(e3_legs[0]); i++) {
        latrec_leg leg;
        memset(&leg, 0, sizeof(leg));
        snprintf(leg.name, sizeof(leg.name), "%s", e3_legs[i].name);
        for (int j = 0; e3_legs[i].chain[j] != END; j++) leg.chain[leg.n_chain++] = (uint8_t)e3_legs[i].chain[j];
        for (int j = 0; e3_legs[i].extras[j] != END; j++) leg.extras[leg.n_extras++] = (uint8_t)e3_legs[i].extras[j];
        if (strcmp(leg.name, "source") == 0) {
            leg.extra_hops[0].from = LATREC_ENCODE_E3SM_DONE;
            leg.extra_hops[0].to = LATREC_WAIT_ENTER;
            leg.n_extra_hops = 1;
        } else if (strcmp(leg.name, "outbound") == 0) {
            leg.extra_hops[0].from = LATREC_EMIT_ENTER;
            leg.extra_hops[0].to = LATREC_ENQUEUE;
            leg.n_extra_hops = 1;
            add_key(&leg, "origin_seq", LATREC_EMIT_ENTER, LATREC_FIELD_AUX);
            add_key(&leg, "msg_id", LATREC_SEND_DONE, LATREC_FIELD_AUX);
            leg.has_bytes = 1;
            leg.bytes_stage = LATREC_ENCODE_E3AP_DONE;
            leg.bytes_field = LATREC_FIELD_AUX;
        } else if (strcmp(leg.name, "consume") == 0) {
            add_key(&leg, "ctrl_id", LATREC_CREATE_OUTPUT, LATREC_FIELD_AUX);
        } else if (strcmp(leg.name, "inbound") == 0) {
            add_key(&leg, "msg_id", LATREC_DECODE_E3AP_DONE, LATREC_FIELD_AUX);
            leg.has_bytes = 1;
            leg.bytes_stage = LATREC_RECV;
            leg.bytes_field = LATREC_FIELD_AUX;
        }
        if (latrec_catalog_add_leg(cat, &leg) < 0) goto oom;
    }
    int source = latrec_catalog_leg(cat, "source"), outbound = latrec_catalog_leg(cat, "outbound"),
        inbound = latrec_catalog_leg(cat, "inbound");
    cat->joins[0] = (latrec_join){ source, -1, outbound, 0, 0 };
    cat->joins[1] = (latrec_join){ outbound, 1, inbound, 0, 1 };
    cat->n_joins = 2;
    if (e3_paths(cat) < 0) goto oom;
    for (size_t i = 0; i < sizeof(e3_aliases) / sizeof(e3_aliases[0]); i++)
        for (int j = 1; e3_aliases[i][j]; j++)
            if (latrec_catalog_add_alias(cat, e3_aliases[i][j], e3_aliases[i][0]) < 0) goto oom;
    return 0;
oom:
    latrec_catalog_free(cat);
    return -1;
}
