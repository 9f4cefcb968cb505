# PyTorch's layer norm forward along each row (eps 1e-5, as the template), on X in the variant's layout.
import torch


def baseline(X, W, B, Y):
    return torch.nn.functional.layer_norm(X, (X.shape[1],), W, B, eps=1e-5)
