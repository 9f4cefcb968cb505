#!/bin/bash
# One device session: build and run every CUDA example's bench bundle, then ncu's counters.
R=/tmp/o; mkdir -p $R; cd "$(dirname "$0")"
B="cuda_transpose cuda_paper cuda_matmul cuda_mma_gemm"
{ nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem,memory.total,driver_version --format=csv; nvcc --version | tail -2; ncu --version; } > $R/device.txt 2>&1
cat $R/device.txt
start=$(date +%s)
for b in $B; do (make -C $b -j8 ARCH=sm_90 bench > $R/build_$b.log 2>&1 || echo "BUILD FAILED $b") & done; wait
echo "built in $(( $(date +%s) - start )) s"
for b in $B; do
  echo "== $b"; (cd $b && timeout 150 ./bench results.json 50) > $R/run_$b.log 2>&1; echo "rc $?"; cat $R/run_$b.log; cp $b/results.json $R/results_$b.json 2>/dev/null
done
echo "runs done at $(( $(date +%s) - start )) s"
timeout 60 ncu --query-metrics > $R/qm.txt 2>&1
M=""
for m in l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum smsp__inst_executed_op_shared_ld.sum smsp__inst_executed_op_shared_st.sum l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldsm.sum l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ldsm.sum smsp__inst_executed_op_ldsm.sum l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum l1tex__t_requests_pipe_lsu_mem_global_op_st.sum; do
  grep -qw "${m%.sum}" $R/qm.txt && M="$M,$m" || echo "no metric $m"
done
M=${M#,}; echo "metrics: $M"
for b in cuda_transpose cuda_matmul cuda_mma_gemm cuda_paper; do
  echo "== ncu $b"; (cd $b && timeout 120 make profile NCU_METRICS="$M") > $R/ncu_$b.log 2>&1; echo "rc $?"; tail -5 $R/ncu_$b.log; cp $b/profile.csv $R/profile_$b.csv 2>/dev/null
done
echo "all done at $(( $(date +%s) - start )) s"
tar czf $OUT/out.tgz -C /tmp o
