/*
 * wire.h - e3loop's messages on the socket: an E3AP-like header and an
 * E3SM-like payload of samples.
 *
 * Indication (RAN -> dApp): header (type E3LOOP_IND) + payload bytes.
 * Control (dApp -> RAN): header (type E3LOOP_CTRL), no payload; msg_id is
 * the control's id, ref_id the indication it answers, value the decision.
 * All fields little-endian host order (both ends are one host).
 */
#ifndef E3LOOP_WIRE_H
#define E3LOOP_WIRE_H

#include <stddef.h>
#include <stdint.h>

#define E3LOOP_MAGIC 0x45334c50u /* "E3LP" */
enum { E3LOOP_IND = 1, E3LOOP_CTRL = 2 };

typedef struct e3loop_hdr {
    uint32_t magic;
    uint16_t type;
    uint16_t ran_function;
    uint64_t msg_id;      /* indication: RAN message id; control: control id */
    uint64_t ref_id;      /* indication: source seq; control: indication's msg_id */
    uint64_t value;       /* indication: payload checksum; control: decision */
    uint32_t payload_len;
    uint32_t pad;
} e3loop_hdr;

/* Fill `out` with `len` bytes of samples for source seq `seq` (the
 * "capture" and "encode" work); returns their checksum. */
uint64_t e3loop_sm_encode(uint8_t *out, size_t len, uint64_t seq);

/* Checksum of a payload ("decode" work on the dApp). */
uint64_t e3loop_sm_checksum(const uint8_t *in, size_t len);

/* Serialise header + payload into buf (cap bytes). Returns bytes, 0 when
 * it does not fit. */
size_t e3loop_wire_put(uint8_t *buf, size_t cap, const e3loop_hdr *h, const uint8_t *payload);

/* Parse a received message of n bytes. Returns 0 and *h (payload at
 * buf + sizeof(*h)), or -1 when malformed. */
int e3loop_wire_get(const uint8_t *buf, size_t n, e3loop_hdr *h);

#endif
