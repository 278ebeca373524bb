/*
 * read/ring_impl.h - what the parts of the ring reader share (ring.c opens
 * and derives, ring_header.c reads and validates the header); not for
 * users of the reader, who include read/ring.h.
 */
#ifndef LATREC_READ_RING_IMPL_H
#define LATREC_READ_RING_IMPL_H

#include "read/ring.h"

/* Reject r with the reason fmt (one line, no path: ring.h): status
 * LATREC_RING_REJECTED, -1. */
int latrec_ring_reject(latrec_ring *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A remark on an accepted ring, into r->warning; the first one is kept. */
void latrec_ring_warn(latrec_ring *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Check that fd is a regular file of at least a header, read its header
 * and fill r's header fields (r->file_size too). 0 when it describes a
 * ring, -1 (rejected, the reason in r->error) otherwise. */
int latrec_ring_read_header(latrec_ring *r, int fd);

#endif
