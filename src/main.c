/* prism entry point: global options and the table of subcommands, nothing else. */
#include <stdio.h>
#include <string.h>

#include "cmds.h"

struct subcommand {
        const char *name;
        int (*fn)(int argc, char **argv);
        const char *summary;
};

static const struct subcommand commands[] = {
        {"analyze", cmd_analyze, "evaluate and show the panels of a workload"},
        {"profile", cmd_profile, "run an application once per counter pass and record a workload"},
        {"roofline", cmd_roofline, "measure the empirical roofline ceilings of this GPU"},
        {"database", cmd_database, "import a workload directory into a SQLite store"},
        {"check-data", cmd_check_data, "check metrics/ and panels/ for every architecture"},
};

static void usage(FILE *f)
{
        fprintf(f, "usage: prism [--version] COMMAND [ARGS]\n\ncommands:\n");
        for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
                fprintf(f, "  %-11s %s\n", commands[i].name, commands[i].summary);
        fprintf(f, "\n'prism COMMAND --help' shows a command's options\n");
}

int cmd_fail(const char *msg)
{
        fprintf(stderr, "prism: %s\n", msg);
        return 2;
}

int main(int argc, char **argv)
{
        if (argc < 2) {
                usage(stderr);
                return 2;
        }
        const char *name = argv[1];
        if (!strcmp(name, "--version") || !strcmp(name, "-V")) {
                printf("prism %s\ncupti backend: %s\n", PRISM_VERSION,
                       PRISM_HAVE_CUPTI ? "yes" : "no");
                return 0;
        }
        if (!strcmp(name, "--help") || !strcmp(name, "-h")) {
                usage(stdout);
                return 0;
        }
        if (!strcmp(name, "help")) {
                if (argc < 3) {
                        usage(stdout);
                        return 0;
                }
                name = argv[2];
                char *hargv[] = {argv[2], "--help", NULL};
                for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
                        if (!strcmp(name, commands[i].name))
                                return commands[i].fn(2, hargv);
        }
        for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
                if (!strcmp(name, commands[i].name))
                        return commands[i].fn(argc - 1, argv + 1);
        fprintf(stderr, "prism: unknown command '%s' (see 'prism --help')\n", name);
        return 2;
}
