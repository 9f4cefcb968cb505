# Y = (X - mean) / sqrt(var + 1e-5) * W + B along each row: one row per
# program, the whole row one block of BN >= N lanes (lanes past N masked:
# they count nothing towards the mean or the variance and store nothing).
import triton
import triton.language as tl


@triton.jit
def layernorm_kernel(X, W, B, Y):
    i = tl.program_id(0)
    j = tl.arange(0, {{ BN }})
    inside = j < {{ N }}
    x = tl.load(X + {{ X[i, j] }}, mask=inside, other=0.0)
    mean = tl.sum(x, axis=0) / {{ N }}
    centred = tl.where(inside, x - mean, 0.0)
    rstd = 1.0 / tl.sqrt(tl.sum(centred * centred, axis=0) / {{ N }} + 1e-5)
    w = tl.load(W + {{ W[j] }}, mask=inside, other=0.0)
    b = tl.load(B + {{ B[j] }}, mask=inside, other=0.0)
    tl.store(Y + {{ Y[i, j] }}, centred * rstd * w + b, mask=inside)


def launch(X, W, B, Y):
    layernorm_kernel[({{ M }},)](X, W, B, Y, num_warps={{ WARPS }})
