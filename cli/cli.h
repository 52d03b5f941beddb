/*
 * cli.h — shared pieces of the smv command-line tool. The CLI is thin: it
 * parses arguments, calls the library, prints. Exit codes everywhere:
 * 0 ok, 1 runtime or input error, 2 usage error.
 */
#ifndef SMV_CLI_H
#define SMV_CLI_H

#include "smv.h"

#include <stdio.h>

#define CLI_OK 0
#define CLI_ERR 1
#define CLI_USAGE 2

/* One subcommand: argv[0] is the subcommand's name. */
int cmd_info(int argc, char **argv);
int cmd_gen(int argc, char **argv);
int cmd_spmv(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_occupancy(int argc, char **argv);
int cmd_micro(int argc, char **argv);

/* "smv: <message>" on stderr. */
void cli_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
/* Print err->message (or the status string) as an error; returns CLI_ERR. */
int cli_fail(smv_status st, const smv_error *err);
/* Usage error: "smv CMD: message" plus "try 'smv CMD --help'"; returns
 * CLI_USAGE. */
int cli_usage(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Strict number parsing: the whole string must be a number in range (a
 * double: finite, subnormals and underflow to 0 included). Return 0 on
 * success, -1 otherwise. */
int cli_parse_double(const char *s, double *v);
int cli_parse_long(const char *s, long lo, long hi, long *v);

/* An option with a value, "NAME VALUE" or "NAME=VALUE" (alias, such as
 * "-o", may be NULL; it takes the separate form only). Returns 1 and sets
 * *v when argv[*i] is that option, advancing *i past a separate value; 0
 * when it is not; -1 when the separate value is missing. */
int cli_opt_value(int argc, char **argv, int *i, const char *name,
                  const char *alias, const char **v);

/* 1 if `arg` is "-h" or "--help". */
int cli_is_help(const char *arg);
/* 1 if argv[1..argc-1] holds -h or --help before any "--": help wins
 * wherever it appears, even where an option's value is expected. */
int cli_wants_help(int argc, char **argv);

/* CLOCK_MONOTONIC in seconds, for wall-clock intervals. */
double cli_now_s(void);

/* Read options for long loads: a progress line on stderr for inputs over
 * 100 MB when stderr is a terminal. */
const smv_read_options *cli_read_options(void);

/* Load a MATRIX argument (file or generator spec), printing the error
 * itself. Returns CLI_OK or CLI_ERR. */
int cli_load(const char *matrix, smv_csr **A);

/* Files the CLI writes (CSV, JSON, Markdown, plot data and scripts) go
 * through smv_file_open: a failed write never destroys an existing file.
 * cli_out_open prints its own error (NULL then); cli_out_close (NULL-safe)
 * checks every write, moves the file into place, and prints "PATH: write
 * error: ..." and returns -1 on failure. */
FILE *cli_out_open(const char *path);
int cli_out_close(FILE *f);

/* Standard output at exit: flush, check and close it, so output lost to a
 * full disk or a closed pipe is an error (exit 1) and not a silent 0.
 * Returns rc, or CLI_ERR (message printed) if rc was 0 and stdout failed. */
int cli_finish_stdout(int rc);

/* Directory holding the running executable (for finding build/micro). */
int cli_exe_dir(char *buf, size_t n);

/* gnuplot, for the PNG plots of `occupancy --sweep` and `bench --plot`:
 * a single-quoted gnuplot string literal ('' escapes a quote, control
 * characters become '?'); whether
 * gnuplot is on PATH; run `gnuplot SCRIPT` without a shell: 0 on success, a
 * positive errno if it could not be started, -1 if gnuplot failed. */
void cli_gnuplot_string(FILE *f, const char *s);
/* A file name that goes into a gnuplot script (--plot): CLI_OK, or a usage
 * error (exit 2, printed) if it holds a control character. */
int cli_check_script_name(const char *cmd, const char *opt, const char *name);
int cli_have_gnuplot(void);
int cli_run_gnuplot(const char *script);

#endif
