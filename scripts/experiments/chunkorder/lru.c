/*
 * lru.c — an LRU model of the L2 for rung 4's chunk kernel (no GPU): the
 * hit rate of X-row gathers when the long rows' chunks run in row order
 * against by their place in their rows (SMV_SPMM_CHUNK_ORDER=1).
 *
 * Model: the rows longer than 256 entries cut into chunks of 256 (rung 4's
 * SMV_SPMM_CHUNK); P chunks in flight, each advancing one entry a round
 * (a warp's gathers, in entry order), a finished chunk replaced by the next
 * in the order; each entry touches X row col[e] in an LRU cache of C rows
 * (C = cache bytes / (k x value bytes): 25 MB / 512 B = 50000 for f32
 * k = 128). Orders: 0 row order (chunk ids), 1 by each chunk's first
 * column, 2 by its place in its row ((i + 1/2) / n for chunk i of n, what
 * the library does: it needs only the row offsets).
 *
 *   cc -O2 -std=c11 -Iinclude scripts/experiments/chunkorder/lru.c \
 *      build-cpu/libsmv.a -lz -lm -fopenmp -o /tmp/lru
 *   /tmp/lru rmat:20:16 3000 50000 2       (MATRIX P C ORDER)
 *
 * rmat:20:16, P = 3000, C = 50000: 63.5% (row order), 86.1% (first
 * column), 86.5% (place); C = 25000: 48.2% (row order), 79.4% (first
 * column), 79.8% (place).
 */
#include "smv.h"

#include <stdio.h>
#include <stdlib.h>

static int64_t *prv, *nxt, head = -1, tail = -1, cnt, cap;
static char *in;

static void unlink_row(int64_t j) {
  if (prv[j] >= 0)
    nxt[prv[j]] = nxt[j];
  else
    head = nxt[j];
  if (nxt[j] >= 0)
    prv[nxt[j]] = prv[j];
  else
    tail = prv[j];
}

static void push_front(int64_t j) {
  prv[j] = -1;
  nxt[j] = head;
  if (head >= 0)
    prv[head] = j;
  head = j;
  if (tail < 0)
    tail = j;
}

/* 1 on a hit; on a miss the row comes in and the least recent one goes. */
static int touch(int64_t j) {
  if (in[j]) {
    unlink_row(j);
    push_front(j);
    return 1;
  }
  if (cnt == cap) {
    const int64_t t = tail;
    unlink_row(t);
    in[t] = 0;
    cnt--;
  }
  push_front(j);
  in[j] = 1;
  cnt++;
  return 0;
}

struct chunk {
  int64_t s, e, c0;
  double f;
};

static int by_col(const void *a, const void *b) {
  const struct chunk *x = a, *y = b;
  return x->c0 < y->c0 ? -1 : x->c0 > y->c0;
}

static int by_place(const void *a, const void *b) {
  const struct chunk *x = a, *y = b;
  return x->f < y->f ? -1 : x->f > y->f;
}

int main(int argc, char **argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: %s MATRIX P C ORDER(0|1|2)\n", argv[0]);
    return 2;
  }
  smv_csr *A = NULL;
  smv_error err;
  if (smv_load(argv[1], NULL, &A, &err) != SMV_OK) {
    fprintf(stderr, "%s: %s\n", argv[1], err.message);
    return 1;
  }
  const int P = atoi(argv[2]), order = atoi(argv[4]);
  cap = atoll(argv[3]);
  if (P < 1 || cap < 1 || order < 0 || order > 2) {
    fprintf(stderr, "P and C must be positive, ORDER 0, 1 or 2\n");
    return 2;
  }
  struct chunk *ch = malloc(sizeof *ch * (size_t)(A->nnz / 256 + A->rows + 1));
  prv = malloc((size_t)A->cols * sizeof *prv);
  nxt = malloc((size_t)A->cols * sizeof *nxt);
  in = calloc((size_t)A->cols, 1);
  int64_t *pos = malloc((size_t)P * sizeof *pos);
  int64_t *end = malloc((size_t)P * sizeof *end);
  if (!ch || !prv || !nxt || !in || !pos || !end) {
    fprintf(stderr, "out of memory\n");
    return 1;
  }
  int64_t nc = 0;
  for (int64_t i = 0; i < A->rows; i++) {
    const int64_t b = A->row_ptr[i], e = A->row_ptr[i + 1];
    if (e - b <= 256)
      continue;
    const int64_t n = (e - b + 255) / 256;
    for (int64_t s = b; s < e; s += 256) {
      ch[nc].s = s;
      ch[nc].e = s + 256 < e ? s + 256 : e;
      ch[nc].c0 = A->col_idx[s];
      ch[nc].f = ((double)((s - b) / 256) + 0.5) / (double)n;
      nc++;
    }
  }
  if (order == 1)
    qsort(ch, (size_t)nc, sizeof *ch, by_col);
  else if (order == 2)
    qsort(ch, (size_t)nc, sizeof *ch, by_place);
  int64_t next = 0, hits = 0, acc = 0;
  int active = 0;
  for (int p = 0; p < P; p++) {
    pos[p] = end[p] = 0;
    if (next < nc) {
      pos[p] = ch[next].s;
      end[p] = ch[next].e;
      next++;
      active++;
    }
  }
  while (active > 0)
    for (int p = 0; p < P; p++) {
      if (pos[p] >= end[p])
        continue;
      hits += touch(A->col_idx[pos[p]]);
      acc++;
      if (++pos[p] >= end[p]) {
        if (next < nc) {
          pos[p] = ch[next].s;
          end[p] = ch[next].e;
          next++;
        } else {
          active--;
        }
      }
    }
  static const char *const names[] = {"row order", "by first column",
                                      "by place in row"};
  printf("%s P=%d C=%lld %s: %lld chunks, %lld gathers, %.1f%% hits\n", argv[1],
         P, (long long)cap, names[order], (long long)nc, (long long)acc,
         acc ? 100.0 * (double)hits / (double)acc : 0.0);
  free(ch), free(prv), free(nxt), free(in), free(pos), free(end);
  smv_csr_free(A);
  return 0;
}
