/* latrec hist */
#include <stdio.h>

#include "cli/commands.h"

int latrec_cmd_hist(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "latrec hist: not built yet in this version\n");
    return LATREC_EXIT_USAGE;
}
