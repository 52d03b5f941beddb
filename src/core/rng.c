/* rng.c — splitmix64, the one random stream of smv: the generators, the
 * lab's random vectors and the tests draw from it. Deterministic for a
 * seed, identical on every platform (64-bit integer arithmetic only). */
#include "smv_lab.h"

uint64_t smv_mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

uint64_t smv_rng_next(smv_rng *g) {
  g->s += 0x9e3779b97f4a7c15ull;
  return smv_mix64(g->s);
}
