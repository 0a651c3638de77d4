/* Kernel name shortening (--kernel-verbose): demangle, then keep template nesting up to
 * a level, as rocprof-compute's levels 1-5 do (5 = the name unchanged). */
#ifndef PRISM_KNAME_H
#define PRISM_KNAME_H

/* A malloc'd shortened name; level >= 5 returns a copy. */
char *kname_shorten(const char *name, int level);

#endif
