/* cmd_fail: how a command reports a failure (one line on stderr, exit status 2). Its own
 * file, so that the commands need not reach back into main.c, which calls them. */
#include <stdio.h>

#include "cmds.h"

int cmd_fail(const char *msg)
{
        fprintf(stderr, "prism: %s\n", msg);
        return 2;
}
