/* carom CLI — one function per subcommand; each returns the process exit
 * status: 0 success, 1 simulation failure, 2 bad input or usage. */
#ifndef CAROM_CLI_COMMANDS_H
#define CAROM_CLI_COMMANDS_H

int cmd_run(int argc, char **argv);      /* cmd_run.c: carom run [SCENE] [--out DIR] */
int cmd_validate(int argc, char **argv); /* cmd_run.c: carom validate SCENE */
int cmd_collide(int argc, char **argv);  /* cmd_collide.c: carom collide [FILE] */

#endif
