/* carom collide: placeholder until the seed 002 law lands. */
#include <stdio.h>

#include "commands.h"

int cmd_collide(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "carom collide: not implemented yet\n");
    return 2;
}
