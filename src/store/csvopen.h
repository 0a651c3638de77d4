/* Internal to src/store: how a CSV file is opened (table.c, csvtexts.c). */
#ifndef PRISM_CSVOPEN_H
#define PRISM_CSVOPEN_H

#include <sys/types.h>

#include "../util/util.h"

/* path opened for reading as a CSV file is read: without blocking (the open of a pipe waits
 * for a writer), and only a regular file (a pipe or a device would block or never end,
 * issue 10). The descriptor and *size, or -1 with err filled: "cannot open 'F': ...",
 * "'F' is a directory, expected a CSV file", "'F' is not a regular file". */
int csv_open_file(const char *path, off_t *size, struct err *err);

#endif
