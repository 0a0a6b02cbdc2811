/* carom CLI — one function per subcommand; each returns the process exit
 * status: 0 success, 1 simulation failure, 2 bad input or usage. */
#ifndef CAROM_CLI_COMMANDS_H
#define CAROM_CLI_COMMANDS_H

int cmd_run(int argc, char **argv);      /* cmd_run.c: carom run [SCENE] [--out DIR] */
int cmd_validate(int argc, char **argv); /* cmd_run.c: carom validate SCENE */
int cmd_collide(int argc, char **argv);  /* cmd_collide.c: carom collide [FILE] */
int cmd_view(int argc, char **argv);     /* cmd_view.c: carom view [SCENE] */
int cmd_render(int argc, char **argv);   /* cmd_render.c: carom render [SCENE] --out FILE.png */
int cmd_plot(int argc, char **argv);     /* cmd_plot.c: carom plot RUN_DIR [--out FILE] */
int cmd_export_web(int argc, char **argv); /* cmd_export_web.c: carom export-web RUN_DIR [--out FILE.html] */

#endif
