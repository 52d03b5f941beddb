/*
 * cg_coop_res_pr.cu — the resident persistent CG's instantiations with the
 * predict-and-recompute recurrence (cg_res_kernel.h, res_pr_loop): their
 * own file so that they compile beside cg_coop_res.cu's.
 */
#include "cg_res_kernel.h"

namespace smv_solve {

const void *cgres_pr_kernel_for(bool f32, bool jac, int lanes, int bs,
                                bool last) {
  return coop_pick<cgres_k<true>>(f32, jac, lanes, bs, last);
}

} // namespace smv_solve
