/*
 * cli/json_bytes.h - a name from the outside world (a ring's or component's
 * name from a ring header) into a JSON object, every byte kept: as it is
 * when it is UTF-8, else escaped as read/escape.h says and flagged
 * "<key>_escaped": true beside it. jansson refuses a string that is not
 * UTF-8 (json_string gives NULL), which would drop the key or the whole
 * object.
 */
#ifndef LATREC_CLI_JSON_BYTES_H
#define LATREC_CLI_JSON_BYTES_H

#include <jansson.h>

/* o[key] = value (null when value is NULL or out of memory). */
void latrec_json_set_bytes(json_t *o, const char *key, const char *value);

#endif
