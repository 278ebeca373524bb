/* A name from the outside world into JSON (cli/json_bytes.h). */
#include "cli/json_bytes.h"

#include <stdio.h>
#include <stdlib.h>

#include "read/escape.h"

void latrec_json_set_bytes(json_t *o, const char *key, const char *value)
{
    if (!value || latrec_utf8_valid(value)) {
        json_object_set_new(o, key, value ? json_string(value) : json_null());
        return;
    }
    char *e = latrec_escape_bytes(value), flag[64];
    json_object_set_new(o, key, e ? json_string(e) : json_null());
    free(e);
    snprintf(flag, sizeof(flag), "%s_escaped", key);
    json_object_set_new(o, flag, json_true());
}
