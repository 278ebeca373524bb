/* latrec report */
#include <stdio.h>

#include "cli/commands.h"

int latrec_cmd_report(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "latrec report: not built yet in this version\n");
    return LATREC_EXIT_USAGE;
}
