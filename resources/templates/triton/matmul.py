# C = A B, fp16 A and B, fp32 accumulation: one BM x BN tile of C per
# program. Which tile a program computes is the grid layout G's inverse of
# its id (the paper's grouped ordering, GM tile rows a group); where A, B
# and C keep element (i, j) is their layouts'. Rows and columns past M, N
# and K are masked: a partial last block loads zeros and stores nothing.
import triton
import triton.language as tl


@triton.jit
def matmul_kernel(A, B, C):
    pid = tl.program_id(0)
    {{ pid_m, pid_n = G.inv(pid) }}
    rm = (pid_m * {{ BM }} + tl.arange(0, {{ BM }}))[:, None]
    rn = (pid_n * {{ BN }} + tl.arange(0, {{ BN }}))[None, :]
    ka = tl.arange(0, {{ BK }})[None, :]
    kb = tl.arange(0, {{ BK }})[:, None]
    acc = tl.zeros(({{ BM }}, {{ BN }}), dtype=tl.float32)
    for k0 in range(0, {{ K }}, {{ BK }}):
        i, k = rm, k0 + ka
        a = tl.load(A + {{ A[i, k] }}, mask=(i < {{ M }}) & (k < {{ K }}), other=0.0)
        k, j = k0 + kb, rn
        b = tl.load(B + {{ B[k, j] }}, mask=(k < {{ K }}) & (j < {{ N }}), other=0.0)
        acc = tl.dot(a, b, acc)
    i, j = rm, rn
    tl.store(C + {{ C[i, j] }}, acc, mask=(i < {{ M }}) & (j < {{ N }}))


def launch(A, B, C):
    matmul_kernel[({{ G.size }},)](A, B, C, num_warps={{ WARPS }}, num_stages={{ STAGES }})
