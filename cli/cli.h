/*
 * cli.h — shared pieces of the smv command-line tool. The CLI is thin: it
 * parses arguments, calls the library, prints. Exit codes everywhere:
 * 0 ok, 1 runtime or input error, 2 usage error.
 */
#ifndef SMV_CLI_H
#define SMV_CLI_H

#include "lab.h"
#include "smv.h"

#include <stdio.h>

#define CLI_OK 0
#define CLI_ERR 1
#define CLI_USAGE 2
/* smv solve and pagerank: the iteration stopped short of the tolerance (as
 * scipy's info > 0): the answer is there, but not to the accuracy asked. */
#define CLI_NOT_CONVERGED 3

/* One subcommand: argv[0] is the subcommand's name. */
int cmd_info(int argc, char **argv);
int cmd_gen(int argc, char **argv);
int cmd_spmv(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_bench_spmm(int argc, char **argv); /* cmd_bench_spmm.c */
int cmd_occupancy(int argc, char **argv);
int cmd_micro(int argc, char **argv);
int cmd_solve(int argc, char **argv);    /* cmd_solve.c */
int cmd_pagerank(int argc, char **argv); /* cmd_solve.c */

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
/* --reuse [N] (smv bench, spmv, info --plan) into the matrix options:
 * bare (reuse_flag set) adds SMV_MATRIX_REUSE, N (calls, 1..10^12) sets
 * expected_calls. CLI_OK, or a usage error printed for cmd. */
int cli_reuse_options(const char *cmd, int reuse_flag, const char *calls,
                      smv_matrix_options *mo);
/* Its help lines, the same for every command that takes it. */
#define CLI_REUSE_HELP                                                         \
  "  --reuse [N]           declare reuse: N SpMVs expected on each matrix "    \
  "(alone:\n"                                                                  \
  "                        many); from smv_matrix_reuse_threshold (960 by "    \
  "default)\n"                                                                 \
  "                        AUTO is planned by measurement where rung 13 "      \
  "(packed)\n"                                                                 \
  "                        qualifies: among it, the rule's pick and "          \
  "cuSPARSE\n"

/* An option with a value, "NAME VALUE" or "NAME=VALUE" (alias, such as
 * "-o", may be NULL; it takes the separate form only). Returns 1 and sets
 * *v when argv[*i] is that option, advancing *i past a separate value; 0
 * when it is not; -1 when the separate value is missing. */
int cli_opt_value(int argc, char **argv, int *i, const char *name,
                  const char *alias, const char **v);

/* One option of a subcommand, for cli_parse. A table of them ends with an
 * entry whose name is NULL. */
typedef struct {
  const char *name;  /* "--output"                                       */
  const char *alias; /* "-o" (takes the separate value only), or NULL     */
  const char *need;  /* NULL: a flag; else what its value is, for the
                        message "NAME needs a FILE" ("a FILE")          */
  int once;          /* 1: a second one is "NAME given twice"            */
  /* 1 (with need): the value is optional, "NAME=VALUE" or a following word
   * made only of digits (so "--reuse lap3d:100" leaves the matrix alone);
   * bare, it acts as a flag: set(user, NULL), or *flag = 1, while a value
   * goes to set or *str. */
  int optional;
  /* Where it goes, the first of these that is set: set(user, value)
   * (value NULL for a flag; returns CLI_OK, or the exit code of a usage
   * error it printed), *str = value (the last one given wins), *flag = 1. */
  int (*set)(void *user, const char *value);
  const char **str;
  int *flag;
} cli_opt;

/* Parse argv[1..]: options of the table, "NAME VALUE" or "NAME=VALUE";
 * "-" and anything not starting with '-', and everything after "--", go to
 * positional(user, arg) (returns CLI_OK or a printed usage error's code).
 * Unknown options (unless the end entry has a set: it gets them), missing
 * values and repeats of `once` options are usage errors ("smv CMD: ..."). Help
 * is not handled here: callers check cli_wants_help first, so help wins
 * anywhere before "--". Returns CLI_OK or CLI_USAGE. */
int cli_parse(const char *cmd, int argc, char **argv, const cli_opt *opts,
              int (*positional)(void *user, const char *arg), void *user);

/* The index of v in names (NULL-terminated), or -1: for options that name
 * one of a few words (--backend, --precision). */
int cli_pick(const char *v, const char *const *names);
/* The same for an option's value v (NULL: not given, 0 returned, *k
 * untouched): 0 with *k = the index, or -1 with why = "OPT must be A, B or
 * C, not 'V'" (the words in names' order) for the usage error. */
int cli_pick_word(const char *opt, const char *v, const char *const *names,
                  int *k, char *why, size_t n);

/* 1 if `arg` is "-h" or "--help". */
int cli_is_help(const char *arg);
/* 1 if argv[1..argc-1] holds -h or --help before any "--": help wins
 * wherever it appears, even where an option's value is expected. */
int cli_wants_help(int argc, char **argv);

/* The rung names of the registry (src/core/rungs.def) in number order,
 * "auto, scalar, ..., adaptive", for --alg help and errors. */
const char *cli_alg_names(void);
/* Print text from column `indent` (where the caller left the cursor),
 * wrapped at 76 columns with continuation lines indented as much, and a
 * newline. */
void cli_wrap(FILE *f, int indent, const char *text);

/* Read options for long loads: a progress line on stderr for inputs over
 * 100 MB when stderr is a terminal. */
const smv_read_options *cli_read_options(void);

/* Load a MATRIX argument (file or generator spec), printing the error
 * itself. Returns CLI_OK or CLI_ERR. */
int cli_load(const char *matrix, smv_csr **A);

/* Read a vector file of the length the matrix needs (checked at its size
 * line, before the reader allocates anything: a 67-byte file may declare
 * 2^31 - 1 values); WHAT says where the length comes from ("the matrix has
 * 9 columns"). CLI_OK or CLI_ERR (printed). */
int cli_read_vector(const char *path, int64_t want, const char *what,
                    double **v);

/* The memory guard (smv_memory_check) for the dense vectors a command
 * allocates beside matrix NAME's CSR: `per_row` bytes per row and `per_col`
 * per column (x and y in f64: 8 and 8). CLI_OK, or CLI_ERR with "NAME: WHICH
 * of a R x C matrix need N GB of memory, more than ..." printed. */
int cli_vectors_fit(const char *name, const smv_csr *A, double per_row,
                    double per_col, const char *which);

/* Standard output at exit: flush, check and close it, so output lost to a
 * full disk or a closed pipe is an error (exit 1) and not a silent 0.
 * Returns rc, or CLI_ERR (message printed) if rc was 0 and stdout failed. */
int cli_finish_stdout(int rc);

/* Directory holding the running executable (for finding build/micro). */
int cli_exe_dir(char *buf, size_t n);

/* A file name that goes into a gnuplot script (--plot): CLI_OK, a usage
 * error (exit 2, printed) if it holds a control character, or CLI_ERR
 * (printed) if it names something other than a regular file or a new name
 * (a directory, device, FIFO, symbolic link: a plot only replaces regular
 * files), checked before any work so that nothing is computed in vain. */
int cli_check_script_name(const char *cmd, const char *opt, const char *name);

/* --reorder rcm|degree (reorder.c; smv info, gen and solve). The words
 * in this order; CLI_ORDER_NONE when the option is absent. */
#define CLI_ORDER_NONE (-1)
#define CLI_ORDER_RCM 0
#define CLI_ORDER_DEGREE 1
/* *order from the option's value v (NULL: CLI_ORDER_NONE): CLI_OK, or the
 * usage error "--reorder must be rcm or degree, not 'V'" (exit 2). */
int cli_reorder_pick(const char *cmd, const char *v, int *order);
const char *cli_reorder_name(int order);
/* What a reordering did: [0] before, [1] after; its time (ordering and
 * permuting). */
typedef struct {
  int64_t bandwidth[2], profile[2];
  double seconds;
} cli_reorder_report;
/* The ordering of square A, *perm (A->rows entries, perm[i] = new index of
 * row i; release with free) and *B = P A P^T (smv_csr_free). CLI_OK, or
 * CLI_ERR with "NAME: ..." printed (rectangular A, no memory). */
int cli_reorder(const char *name, int order, const smv_csr *A, smv_csr **B,
                smv_index **perm, cli_reorder_report *rep);
/* "reorder       rcm: bandwidth B0 -> B1, profile P0 -> P1 (T ms)". */
void cli_reorder_print(FILE *f, int order, const cli_reorder_report *rep);

#endif
