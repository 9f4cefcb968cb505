# PyTorch's softmax along each row, on X in the variant's layout (a view of its buffer).
import torch


def baseline(X, Y):
    return torch.softmax(X, dim=1)
