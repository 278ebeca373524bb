/*
 * latrec/stages.h - the built-in E3 stage catalog.
 *
 * Stage ids are 8 bits; their meaning belongs to a catalog. This is the E3
 * catalog used by libE3 and its neighbours (catalog name "e3" in a v3 ring
 * header). Ids are stable: never renumber, only append.
 *
 * Payload conventions that joins rely on:
 *   EMIT_ENTER.aux       = the producer's own seq (its latrec_ctx_set value),
 *   EMIT_ENTER.aux2      = RAN function id;
 *   SEND_DONE.aux        = message id = DECODE_E3AP_DONE.aux on the receiver;
 *   DELIVER_BEGIN/DONE, BRIDGE_IN/OUT .aux = E3AP sequenceId;
 *   DROP.aux2 = LATREC_DROP_*, SKIPPED.aux2 = LATREC_SKIP_*,
 *   ADMITTED.aux2 = LATREC_OUT_*;
 *   CONTEXT (about 1 Hz, seq 0): aux = involuntary context switches since the
 *   last tick, aux2 = current CPU frequency in kHz (0 if unknown).
 */
#ifndef LATREC_STAGES_H
#define LATREC_STAGES_H

#ifdef __cplusplus
extern "C" {
#endif

/* X(NAME, id) for every stage of the E3 catalog, in id order. */
#define LATREC_E3_STAGES(X) \
    X(RECORD_BEGIN, 0x10) \
    X(PROCESS_BEGIN, 0x11) \
    X(ENCODE_E3SM_BEGIN, 0x18) \
    X(ENCODE_E3SM_DONE, 0x19) \
    X(DECODE_E3SM_BEGIN, 0x1A) \
    X(DECODE_E3SM_DONE, 0x1B) \
    X(EMIT_ENTER, 0x20) \
    X(ENQUEUE, 0x21) \
    X(DEQUEUE, 0x22) \
    X(ENCODE_E3AP_DONE, 0x23) \
    X(SEND_DONE, 0x24) \
    X(RECV, 0x25) \
    X(DECODE_E3AP_DONE, 0x26) \
    X(DELIVER_BEGIN, 0x27) \
    X(DELIVER_DONE, 0x28) \
    X(REPORT_QUEUED, 0x29) \
    X(REPORT_DONE, 0x2A) \
    X(SESSION_QUEUED, 0x2B) \
    X(SESSION_POLLED, 0x2C) \
    X(DROP, 0x2F) \
    X(SETUP_BEGIN, 0x30) \
    X(SETUP_DONE, 0x31) \
    X(SUB_BEGIN, 0x32) \
    X(SUB_DONE, 0x33) \
    X(SM_START, 0x34) \
    X(SM_STOP, 0x35) \
    X(SM_STATUS_BEGIN, 0x36) \
    X(SM_STATUS_DONE, 0x37) \
    X(PROCESS_DONE, 0x40) \
    X(CREATE_OUTPUT, 0x41) \
    X(APPLY_POLICY_DONE, 0x42) \
    X(ADMITTED, 0x43) \
    X(APPLY_CONTROL_DONE, 0x48) \
    X(LIVE_ON_AIR, 0x49) \
    X(ACK_SENT, 0x4A) \
    X(ACK_RECV, 0x4B) \
    X(BRIDGE_IN, 0x50) \
    X(BRIDGE_OUT, 0x51) \
    X(ENCODE_E2AP_BEGIN, 0x58) \
    X(ENCODE_E2AP_DONE, 0x59) \
    X(DECODE_E2AP_BEGIN, 0x5A) \
    X(DECODE_E2AP_DONE, 0x5B) \
    X(DECODE_E2SM_BEGIN, 0x60) \
    X(DECODE_E2SM_DONE, 0x61) \
    X(XAPP_PROCESS_DONE, 0x62) \
    X(ENCODE_E2SM_BEGIN, 0x63) \
    X(ENCODE_E2SM_DONE, 0x64) \
    X(WAIT_ENTER, 0x70) \
    X(SKIPPED, 0x71) \
    X(CONTEXT, 0x72)

enum {
    LATREC_RECORD_BEGIN         = 0x10,
    LATREC_PROCESS_BEGIN        = 0x11,
    LATREC_ENCODE_E3SM_BEGIN    = 0x18,
    LATREC_ENCODE_E3SM_DONE     = 0x19,
    LATREC_DECODE_E3SM_BEGIN    = 0x1A,
    LATREC_DECODE_E3SM_DONE     = 0x1B,
    LATREC_EMIT_ENTER           = 0x20,
    LATREC_ENQUEUE              = 0x21,
    LATREC_DEQUEUE              = 0x22,
    LATREC_ENCODE_E3AP_DONE     = 0x23,
    LATREC_SEND_DONE            = 0x24,
    LATREC_RECV                 = 0x25,
    LATREC_DECODE_E3AP_DONE     = 0x26,
    LATREC_DELIVER_BEGIN        = 0x27,
    LATREC_DELIVER_DONE         = 0x28,
    LATREC_REPORT_QUEUED        = 0x29,
    LATREC_REPORT_DONE          = 0x2A,
    LATREC_SESSION_QUEUED       = 0x2B,
    LATREC_SESSION_POLLED       = 0x2C,
    LATREC_DROP                 = 0x2F,
    LATREC_SETUP_BEGIN          = 0x30,
    LATREC_SETUP_DONE           = 0x31,
    LATREC_SUB_BEGIN            = 0x32,
    LATREC_SUB_DONE             = 0x33,
    LATREC_SM_START             = 0x34,
    LATREC_SM_STOP              = 0x35,
    LATREC_SM_STATUS_BEGIN      = 0x36,
    LATREC_SM_STATUS_DONE       = 0x37,
    LATREC_PROCESS_DONE         = 0x40,
    LATREC_CREATE_OUTPUT        = 0x41,
    LATREC_APPLY_POLICY_DONE    = 0x42,
    LATREC_ADMITTED             = 0x43,
    LATREC_APPLY_CONTROL_DONE   = 0x48,
    LATREC_LIVE_ON_AIR          = 0x49,
    LATREC_ACK_SENT             = 0x4A,
    LATREC_ACK_RECV             = 0x4B,
    LATREC_BRIDGE_IN            = 0x50,
    LATREC_BRIDGE_OUT           = 0x51,
    LATREC_ENCODE_E2AP_BEGIN    = 0x58,
    LATREC_ENCODE_E2AP_DONE     = 0x59,
    LATREC_DECODE_E2AP_BEGIN    = 0x5A,
    LATREC_DECODE_E2AP_DONE     = 0x5B,
    LATREC_DECODE_E2SM_BEGIN    = 0x60,
    LATREC_DECODE_E2SM_DONE     = 0x61,
    LATREC_XAPP_PROCESS_DONE    = 0x62,
    LATREC_ENCODE_E2SM_BEGIN    = 0x63,
    LATREC_ENCODE_E2SM_DONE     = 0x64,
    LATREC_WAIT_ENTER           = 0x70,
    LATREC_SKIPPED              = 0x71,
    LATREC_CONTEXT              = 0x72,
};

/* DROP.aux2 reasons */
enum {
    LATREC_DROP_QUEUE_PUSH    = 1,
    LATREC_DROP_ENCODE        = 2,
    LATREC_DROP_SEND          = 3,
    LATREC_DROP_DECODE        = 4,
    LATREC_DROP_REPORT_QUEUE  = 5,
    LATREC_DROP_NO_HANDLER    = 6,
    LATREC_DROP_SESSION_QUEUE = 7,
    LATREC_DROP_FILTERED      = 8,
    LATREC_DROP_SHUTDOWN      = 9
};

/* SKIPPED.aux2 reasons */
enum {
    LATREC_SKIP_NO_SUBSCRIBERS = 1,
    LATREC_SKIP_ENCODE         = 2,
    LATREC_SKIP_COALESCED      = 3,
    LATREC_SKIP_NO_SHM         = 4,
    LATREC_SKIP_RANGES_LOST    = 5
};

/* ADMITTED.aux2 outcomes */
enum {
    LATREC_OUT_PROCESSED = 0,
    LATREC_OUT_SHED_AGE  = 1,
    LATREC_OUT_SHED_LAG  = 2,
    LATREC_OUT_NO_RANGE  = 3
};

/* Name of an E3 catalog stage id without the LATREC_ prefix
 * ("RECORD_BEGIN"), or NULL when the id is not in the catalog. */
static inline const char *latrec_e3_stage_name(unsigned id)
{
    switch (id) {
#define LATREC_STAGE_CASE_(name, id) case id: return #name;
    LATREC_E3_STAGES(LATREC_STAGE_CASE_)
#undef LATREC_STAGE_CASE_
    default: return (const char *)0;
    }
}

#ifdef __cplusplus
}
#endif
#endif /* LATREC_STAGES_H */
