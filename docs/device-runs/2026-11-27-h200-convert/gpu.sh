#!/bin/bash
# Emitted conversions (lego convert --emit cuda) on a device: build, verify, and ncu's shared-memory counters.
R=/tmp/o; mkdir -p $R; cd "$(dirname "$0")"
B="c_regs c_swz c_row c_shfl t_swz t_row t_shfl ad_shfl ad_sh t_f64 t64"
nvidia-smi --query-gpu=name,driver_version --format=csv > $R/device.txt 2>&1; cat $R/device.txt
start=$(date +%s)
for b in $B; do (make -C $b -j4 ARCH=sm_90 bench > $R/build_$b.log 2>&1 || echo "BUILD FAILED $b") & done; wait
echo "built in $(( $(date +%s) - start )) s"
for b in $B; do
  (cd $b && timeout 30 ./bench results.json 5) > $R/run_$b.log 2>&1; echo "== $b rc $?"; grep -iE 'verif|wrong|error|fail' $R/run_$b.log | head -3; cp $b/results.json $R/results_$b.json 2>/dev/null
done
M=l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_shared_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
for b in c_swz c_row t_swz t_row ad_sh t64; do
  (cd $b && timeout 60 make profile NCU_METRICS="$M") > $R/ncu_$b.log 2>&1; echo "== ncu $b rc $?"; cp $b/profile.csv $R/profile_$b.csv 2>/dev/null; grep -E 'shared' $b/profile.csv | head -8
done
echo "all done at $(( $(date +%s) - start )) s"
tar czf $OUT/out.tgz -C /tmp o
