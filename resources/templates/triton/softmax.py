# Y = softmax(X) along each row: one row per program, the whole row one
# block of BN >= N lanes (lanes past N masked: they load -inf, which adds
# nothing to the sum, and store nothing). Where the row's elements live is
# X's and Y's layouts'.
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(X, Y):
    i = tl.program_id(0)
    j = tl.arange(0, {{ BN }})
    inside = j < {{ N }}
    x = tl.load(X + {{ X[i, j] }}, mask=inside, other=-float("inf"))
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(Y + {{ Y[i, j] }}, e / tl.sum(e, axis=0), mask=inside)


def launch(X, Y):
    softmax_kernel[({{ M }},)](X, Y, num_warps={{ WARPS }})
