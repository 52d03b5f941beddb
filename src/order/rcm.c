/* rcm.c — the orderings: reverse Cuthill-McKee and degree (smv.h,
 * "Reordering"), on the graph of A + A^T (graph.c).
 *
 * RCM, per connected component (components taken in the order of their
 * lowest-numbered node):
 *   1. start node: the usual pseudo-peripheral search (George and Liu):
 *      from the component's node of least degree r, a breadth-first
 *      search gives r's level structure; from the least-degree node c of
 *      its deepest level another search; while c's structure is deeper,
 *      r = c and again. Each search is O(component), and the depth grows
 *      each time, so there are few.
 *   2. Cuthill-McKee: breadth first from r, each node's unnumbered
 *      neighbours numbered in increasing degree (ties: lower index). The
 *      adjacency lists are sorted by (degree, index) once beforehand, so
 *      the walk itself is O(edges).
 * The whole order is reversed at the end (the R of RCM: the same
 * bandwidth, a smaller profile).
 *
 * Memory beyond the graph (8 (n + 1) + 4 edges bytes): the order, the
 * levels, the numbered flags (9 n bytes) and, while sorting, one key per
 * neighbour of the longest list (8 bytes each). */
#include "order_graph.h"

#include <stdlib.h>

static int64_t degree(const smv__graph *g, int64_t i) {
  return g->ptr[i + 1] - g->ptr[i];
}

/* (degree, index) as one integer: both are below 2^31. */
static uint64_t key(const smv__graph *g, smv_index i) {
  return ((uint64_t)degree(g, i) << 31) | (uint64_t)i;
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* Sort every adjacency list by (degree, index). */
static smv_status sort_lists(smv__graph *g, smv_error *err) {
  int64_t longest = 0;
  for (int64_t i = 0; i < g->n; i++)
    if (degree(g, i) > longest)
      longest = degree(g, i);
  uint64_t *keys = malloc(((size_t)longest + 1) * sizeof *keys);
  if (!keys)
    return smv_err_set(err, SMV_ERR_NOMEM, NULL, 0,
                       "RCM: out of memory for %lld sort keys",
                       (long long)longest);
  for (int64_t i = 0; i < g->n; i++) {
    smv_index *a = g->adj + g->ptr[i];
    const int64_t d = degree(g, i);
    for (int64_t k = 0; k < d; k++)
      keys[k] = key(g, a[k]);
    qsort(keys, (size_t)d, sizeof *keys, cmp_u64);
    for (int64_t k = 0; k < d; k++)
      a[k] = (smv_index)(keys[k] & 0x7fffffffu);
  }
  free(keys);
  return SMV_OK;
}

/* Breadth-first search from root over nodes whose level is -1: level[] set
 * for each node reached, queue[0 .. *count) the nodes in search order.
 * Returns the depth (the deepest level); *last is where that level starts
 * in queue. */
static int64_t bfs(const smv__graph *g, smv_index root, int32_t *level,
                   smv_index *queue, int64_t *count, int64_t *last) {
  int64_t head = 0, tail = 0;
  queue[tail++] = root;
  level[root] = 0;
  *last = 0;
  while (head < tail) {
    smv_index u = queue[head++];
    if (level[u] > level[queue[*last]])
      *last = head - 1;
    for (int64_t k = g->ptr[u]; k < g->ptr[u + 1]; k++) {
      smv_index v = g->adj[k];
      if (level[v] < 0) {
        level[v] = level[u] + 1;
        queue[tail++] = v;
      }
    }
  }
  *count = tail;
  return level[queue[tail - 1]];
}

static void levels_reset(int32_t *level, const smv_index *queue,
                         int64_t count) {
  for (int64_t k = 0; k < count; k++)
    level[queue[k]] = -1;
}

/* The node of least (degree, index) among queue[from .. to). */
static smv_index least(const smv__graph *g, const smv_index *queue,
                       int64_t from, int64_t to) {
  smv_index best = queue[from];
  for (int64_t k = from + 1; k < to; k++)
    if (key(g, queue[k]) < key(g, best))
      best = queue[k];
  return best;
}

/* The pseudo-peripheral start of the component of s (all unnumbered). */
static smv_index start_node(const smv__graph *g, smv_index s, int32_t *level,
                            smv_index *queue) {
  int64_t count, last;
  bfs(g, s, level, queue, &count, &last);
  smv_index r = least(g, queue, 0, count);
  levels_reset(level, queue, count);
  int64_t depth = bfs(g, r, level, queue, &count, &last);
  for (;;) {
    smv_index c = least(g, queue, last, count);
    levels_reset(level, queue, count);
    int64_t d = bfs(g, c, level, queue, &count, &last);
    if (d <= depth) {
      levels_reset(level, queue, count);
      return r;
    }
    r = c;
    depth = d;
  }
}

smv_status smv_order_rcm(const smv_csr *A, smv_index *perm, smv_error *err) {
  smv_err_clear(err);
  if (A && A->rows > 0 && !perm)
    return smv_err_set(err, SMV_ERR_ARG, NULL, 0, "RCM: perm is NULL");
  smv__graph g;
  smv_status st = smv__graph_build(A, "RCM", &g, err);
  if (st != SMV_OK)
    return st;
  const int64_t n = g.n;
  smv_index *order = malloc(((size_t)n + 1) * sizeof *order);
  smv_index *queue = malloc(((size_t)n + 1) * sizeof *queue);
  int32_t *level = malloc(((size_t)n + 1) * sizeof *level);
  unsigned char *done = calloc((size_t)n + 1, 1);
  if (!order || !queue || !level || !done) {
    st = smv_err_set(err, SMV_ERR_NOMEM, NULL, 0,
                     "RCM: out of memory for the work arrays of %lld rows",
                     (long long)n);
    goto out;
  }
  if ((st = sort_lists(&g, err)) != SMV_OK)
    goto out;
  for (int64_t i = 0; i < n; i++)
    level[i] = -1;
  int64_t pos = 0;
  for (int64_t s = 0; s < n; s++) {
    if (done[s])
      continue;
    smv_index r = start_node(&g, (smv_index)s, level, queue);
    /* Cuthill-McKee: order[] is its own queue. */
    int64_t head = pos;
    order[pos++] = r;
    done[r] = 1;
    while (head < pos) {
      smv_index u = order[head++];
      for (int64_t k = g.ptr[u]; k < g.ptr[u + 1]; k++) {
        smv_index v = g.adj[k];
        if (!done[v]) {
          done[v] = 1;
          order[pos++] = v;
        }
      }
    }
  }
  for (int64_t k = 0; k < n; k++)
    perm[order[k]] = (smv_index)(n - 1 - k);
out:
  free(order);
  free(queue);
  free(level);
  free(done);
  smv__graph_free(&g);
  return st;
}

smv_status smv_order_degree(const smv_csr *A, smv_index *perm, smv_error *err) {
  smv_err_clear(err);
  if (A && A->rows > 0 && !perm)
    return smv_err_set(err, SMV_ERR_ARG, NULL, 0,
                       "degree ordering: perm is NULL");
  smv__graph g;
  smv_status st = smv__graph_build(A, "degree ordering", &g, err);
  if (st != SMV_OK)
    return st;
  const int64_t n = g.n;
  /* Counting sort by degree (0 .. n - 1), stable: start[d] is where the
   * nodes of degree d begin in the new order. */
  int64_t *start = calloc((size_t)n + 1, sizeof *start);
  if (!start) {
    smv__graph_free(&g);
    return smv_err_set(err, SMV_ERR_NOMEM, NULL, 0,
                       "degree ordering: out of memory for %lld counts",
                       (long long)n);
  }
  for (int64_t i = 0; i < n; i++)
    start[degree(&g, i) + 1]++;
  for (int64_t d = 0; d < n; d++)
    start[d + 1] += start[d];
  for (int64_t i = 0; i < n; i++)
    perm[i] = (smv_index)start[degree(&g, i)]++;
  free(start);
  smv__graph_free(&g);
  return SMV_OK;
}
