#!/bin/bash
# session 17 call 7: PDL in rung 9 — device tests, a broken-wait build must fail test_cuda_pdl, real matrices with the suite's options
cd "$(dirname "$0")/.."
make -j16 all tests GIT_COMMIT=${C:-dev} >$OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
echo "warnings: $(grep -c warning $OUT/build.log)"
s=$SECONDS; build/tests/test_cuda_pdl >$OUT/pdl.log 2>&1; echo "test_cuda_pdl rc=$? $((SECONDS-s))s: $(tail -1 $OUT/pdl.log)"; grep -m5 -i "fail" $OUT/pdl.log
s=$SECONDS; make test >$OUT/make-test.log 2>&1; echo "make test rc=$? $((SECONDS-s))s: $(tail -1 $OUT/make-test.log)"; grep -E "^FAIL" $OUT/make-test.log | head
s=$SECONDS; compute-sanitizer --tool memcheck build/tests/test_cuda_pdl >$OUT/pdl-memcheck.log 2>&1; echo "memcheck pdl rc=$? $((SECONDS-s))s: $(grep 'ERROR SUMMARY' $OUT/pdl-memcheck.log)"
D=.shared/matrices
s=$SECONDS; timeout 200 build/smv bench $D/*.mtx.gz --alg auto,adaptive,stream,cusparse-alg1,cusparse-alg2 --precision both --flush-l2 --runs 100 --max-time 0.3 --graph-batch 50 --quiet --csv $OUT/real.csv >/dev/null 2>$OUT/real.err; echo "real rc=$? $((SECONDS-s))s PASS $(grep -c ,PASS, $OUT/real.csv) FAIL $(grep -c ,FAIL, $OUT/real.csv)"
build/smv info $D/ct2010.mtx.gz --plan --precision f32 2>&1 | grep -i "plan" | head -3
# teeth: without the wait the chain test must fail
sed -i 's/asm volatile("griddepcontrol.wait;" ::: "memory");/\/\* broken \*\//' src/cuda/kernel_common.h
grep -c broken src/cuda/kernel_common.h
make -j16 build/tests/test_cuda_pdl GIT_COMMIT=broken >$OUT/build2.log 2>&1; echo "broken build rc=$?"
build/tests/test_cuda_pdl >$OUT/pdl-broken.log 2>&1; echo "broken test_cuda_pdl rc=$? (must be nonzero): $(tail -1 $OUT/pdl-broken.log)"; grep -m3 "bad rows\|differs" $OUT/pdl-broken.log
cd $OUT && tar czf logs.tgz *.log real.err && rm -f *.log
