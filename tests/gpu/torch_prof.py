# SPDX-License-Identifier: GPL-2.0-or-later
# PyTorch's own profiler (Kineto, a CUPTI client) in a short training loop,
# for scripts/gpu-check.sh: what happens when the program uses CUPTI itself
# while zt's library is injected. Steps before, inside and after a
# torch.profiler window; prints what the script parses:
#   TPROF window_start_ns=N window_end_ns=N   (CLOCK_MONOTONIC, zt's clock)
#   TPROF kineto_cuda_kernels=N kineto_events=N
#   TPROF steps=N ok=1
# Usage: python3 torch_prof.py [STEPS_EACH]
import sys
import time

import torch
from torch.profiler import ProfilerActivity, profile


def step(model, opt, x, y):
    opt.zero_grad(set_to_none=True)
    loss = torch.nn.functional.mse_loss(model(x), y)
    loss.backward()
    opt.step()


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(1024, 2048), torch.nn.ReLU(),
                                torch.nn.Linear(2048, 512)).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    x = torch.randn(512, 1024, device="cuda")
    y = torch.randn(512, 512, device="cuda")
    for _ in range(n):
        step(model, opt, x, y)
    torch.cuda.synchronize()
    t0 = time.monotonic_ns()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for _ in range(n):
            step(model, opt, x, y)
        torch.cuda.synchronize()
    t1 = time.monotonic_ns()
    print(f"TPROF window_start_ns={t0} window_end_ns={t1}", flush=True)
    ev = prof.events()
    kern = [e for e in ev if getattr(e, "device_type", None) is not None
            and str(e.device_type).endswith("CUDA")]
    print(f"TPROF kineto_cuda_kernels={len(kern)} kineto_events={len(ev)}", flush=True)
    for _ in range(n):
        step(model, opt, x, y)
    torch.cuda.synchronize()
    print(f"TPROF steps={3 * n} ok=1", flush=True)


if __name__ == "__main__":
    main()
