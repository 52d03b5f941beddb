/*
 * order_graph.h — the graph the orderings walk (graph.c): the pattern of A +
 * A^T without the diagonal, one adjacency list per node (in no set order), no
 * duplicates. Private to src/order/.
 */
#ifndef SMV_ORDER_GRAPH_H
#define SMV_ORDER_GRAPH_H

#include "internal.h"

/* n nodes; node i's neighbours are adj[ptr[i] .. ptr[i+1]), each once,
 * never i itself; its degree is their count. ptr is int64: A + A^T may
 * hold up to 2 * nnz entries, past the int32 offset limit.
 * Memory: 8 (n + 1) + 4 * (entries of A + A^T off the diagonal) bytes. */
typedef struct {
  int64_t n;
  int64_t *ptr;   /* n + 1 */
  smv_index *adj; /* ptr[n] */
} smv__graph;

/* Build g from A (checked with smv_csr_check; square, else SMV_ERR_DIM
 * with "WHO needs a square matrix"). On error g holds nothing to free.
 * Extra memory while building: A^T's pattern (8 (n + 1) + 4 nnz bytes)
 * and a marker (4 n bytes). O(nnz + n) time. */
smv_status smv__graph_build(const smv_csr *A, const char *who, smv__graph *g,
                            smv_error *err);
/* Release g's arrays (NULL-safe, idempotent). */
void smv__graph_free(smv__graph *g);

#endif
