/* Commands whose modules are optional in this build: a weak definition answers with a
 * clear error; the real module's definition replaces it at link time. */
#include <stdio.h>

#include "cmds.h"

#define PENDING(fn, name)                                                                      \
        __attribute__((weak)) int fn(int argc, char **argv)                                    \
        {                                                                                      \
                (void)argc;                                                                    \
                (void)argv;                                                                    \
                fprintf(stderr, "prism: '%s' is not part of this build\n", name);              \
                return 2;                                                                      \
        }

PENDING(cmd_profile, "profile")
PENDING(cmd_roofline, "roofline")
PENDING(cmd_database, "database")
