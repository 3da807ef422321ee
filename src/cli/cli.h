/* Entry points of the swsearch subcommands; each returns the exit status. */
#ifndef CLI_H
#define CLI_H

int cli_search(int argc, char **argv);
int cli_info(int argc, char **argv);
int cli_verify(int argc, char **argv);
int cli_calibrate(int argc, char **argv);
int cli_align(int argc, char **argv);
int cli_profile(int argc, char **argv);
int cli_serve(int argc, char **argv);

#endif
