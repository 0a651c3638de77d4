/* The machine's part of sysinfo.csv, shared by the collection backends: the host columns,
 * small system files read under a root that tests can replace, one-row sysinfo cells. */
#ifndef PRISM_HOST_H
#define PRISM_HOST_H

#include <stddef.h>

struct table;

/* The root standing for "/" when reading /sys, /proc, /etc and /opt: $PRISM_SYSFS_ROOT
 * (for tests on fake trees) or "" (the real system). Never NULL. */
const char *detect_root(void);

/* A value from the text file rel (under detect_root()): with prefix, the rest of the first
 * line that starts with it, without separators (" \t:=") and quotes; without, the first
 * line. "" when unreadable or absent. */
void host_file_value(const char *rel, const char *prefix, char *buf, size_t len);

/* Row 0 of a sysinfo table (added if absent): a text (NULL: "") or a number in column col
 * (added if absent). */
void sysinfo_set_str(struct table *si, const char *col, const char *v);
void sysinfo_set_num(struct table *si, const char *col, double v);

/* The host columns, in rocprof-compute's order: hostname, cpu_model, sbios, linux_distro,
 * linux_kernel_version. */
void host_sysinfo(struct table *si);

#endif
