/* The subcommands: each parses its own options and returns the process exit status
 * (0 ok, 1 comparison/check found differences, 2 bad input or usage). */
#ifndef PRISM_CMDS_H
#define PRISM_CMDS_H

int cmd_analyze(int argc, char **argv);
int cmd_profile(int argc, char **argv);
int cmd_roofline(int argc, char **argv);
int cmd_database(int argc, char **argv);
int cmd_check_data(int argc, char **argv);

/* Print "prism: message" for a failed command and return 2. */
int cmd_fail(const char *msg);

#endif
