/* e3loop's wire format and payload work. */
#include "wire.h"

#include <string.h>

uint64_t e3loop_sm_encode(uint8_t *out, size_t len, uint64_t seq)
{
    uint64_t x = seq * 0x9E3779B97F4A7C15ull + 1, sum = 0;
    for (size_t i = 0; i < len; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        out[i] = (uint8_t)x;
        sum = sum * 31 + out[i];
    }
    return sum;
}

uint64_t e3loop_sm_checksum(const uint8_t *in, size_t len)
{
    uint64_t sum = 0;
    for (size_t i = 0; i < len; i++) sum = sum * 31 + in[i];
    return sum;
}

size_t e3loop_wire_put(uint8_t *buf, size_t cap, const e3loop_hdr *h, const uint8_t *payload)
{
    size_t n = sizeof(*h) + h->payload_len;
    if (n > cap) return 0;
    memcpy(buf, h, sizeof(*h));
    if (h->payload_len) memcpy(buf + sizeof(*h), payload, h->payload_len);
    return n;
}

int e3loop_wire_get(const uint8_t *buf, size_t n, e3loop_hdr *h)
{
    if (n < sizeof(*h)) return -1;
    memcpy(h, buf, sizeof(*h));
    if (h->magic != E3LOOP_MAGIC || (h->type != E3LOOP_IND && h->type != E3LOOP_CTRL)) return -1;
    if (sizeof(*h) + h->payload_len != n) return -1;
    return 0;
}
