/*
 * auto.h — what AUTO's rule (auto.def) decides from: facts of one matrix
 * on one device, filled by the CUDA engine at analysis
 * (smv_auto_facts_of), evaluated by smv_auto_choose. Private to the
 * library (src/ and its engine).
 */
#ifndef SMV_AUTO_H
#define SMV_AUTO_H

/* V = 8 bytes per value in f64, 4 in f32. */
struct smv_auto_facts {
  int past_l2;       /* nnz * (V + 4) bytes of values and indices > L2  */
  int scattered;     /* column spread > 0.05: x gathered from all over  */
  int x_past_l2;     /* cols * V > L2                                    */
  int even;          /* longest row <= 4 x the mean                      */
  int long_rare;     /* at most one row in 10^4 longer than 4 x the mean */
  double row_mean;   /* entries per row                                  */
  int hot_candidate; /* rung 12 considered: f32, past the L2, scattered,
                        x inside the L2 (its hot columns were built)     */
  double hot_mass;   /* share of the entries in rung 12's hot columns
                        (0 where it has none or was not considered)      */
  int f64;           /* the matrix's values are doubles                  */
  double long_f64;   /* rows at least this long (entries, local columns,
                        f64) go to rung 9: 72 (docs/engine.md, rule 7)   */
};

#endif
