/* prog.c - the command named on standard error (prog.h). */
#include "util/prog.h"

const char *latrec_prog = "latrec";
