/* Command-line options declared once: a table per command (src/cmd_options.c) that the
 * command parses with, prints its --help from, and from which the build writes the man
 * pages' option sections and the shell completions (src/gen/optdoc.c). */
#ifndef PRISM_OPT_H
#define PRISM_OPT_H

#include <stddef.h>
#include <stdio.h>

struct opt {
        int id;            /* the command's number for it */
        const char *lng;   /* "path" for --path */
        char shrt;         /* 'p' for -p, 0: none */
        const char *arg;   /* its value: "DIR"; "ID..." one or more; "[ARCH]" optional;
                            * NULL: none */
        const char *help;  /* the --help text; '\n' starts a continuation line */
        const char *man;   /* the man page's text of it (mdoc); NULL: the help text */
        const char *words; /* what completion offers after it ("kernels dispatches"), a
                            * "@name" for a generator of the completion script, or NULL */
};

struct cmd_spec {
        const char *name;  /* "analyze" */
        const char *usage; /* the lines before the options in --help */
        const char *after; /* after them (NULL: none) */
        const struct opt *opts;
        size_t nopts;
};

/* The option argv[i] names (-p, --path; "--path=DIR" is not taken), or NULL. */
const struct opt *opt_find(const struct cmd_spec *c, const char *arg);
/* 1 when the option takes a value, 2 when one or more, 3 when an optional one. */
int opt_takes(const struct opt *o);
/* The command's --help: its usage, every option (aligned), then its after text. */
void opt_help(FILE *f, const struct cmd_spec *c);
/* "-p, --path" or "--path" (buf of 64 bytes). */
const char *opt_names(const struct opt *o, char *buf);

/* Every command's table (src/cmd_options.c), the last entry's name NULL. */
extern const struct cmd_spec cmd_specs[];
const struct cmd_spec *cmd_spec(const char *name);

#endif
