"""The environment a Python peer (numpy, scipy, PyTorch) runs in, at its best: without the
OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE some machines set for their own reasons (they pin a current
OpenBLAS to older, slower kernels). Each benchmark with a Python peer runs it in this environment
and says what it unset; model_vs_pytorch.py also prints the BLAS kernel the peer used."""
import os

PINS = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")


def peer_environment(report=True):
    """os.environ without the OpenBLAS pins; prints each one it drops when `report`."""
    for name in PINS:
        if name in os.environ and report:
            print(f"{name}={os.environ[name]} is set here: unset for the peer")
    return {k: v for k, v in os.environ.items() if k not in PINS}
