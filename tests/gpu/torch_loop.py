# SPDX-License-Identifier: GPL-2.0-or-later
# A short PyTorch training loop for scripts/gpu-check.sh: a few matrix
# products, a loss, backward and an optimizer step, for SECONDS after a
# warm-up; prints what the script parses:
#   TORCH version=... cuda=... device=...
#   TORCH steps=N seconds=S steps_per_s=R
#   TORCH libcupti=PATH   (the CUPTI this process loaded, if any)
# Usage: python3 torch_loop.py [SECONDS]
import sys
import time

import torch


def train_step(model, opt, x, y):
    opt.zero_grad(set_to_none=True)
    loss = torch.nn.functional.mse_loss(model(x), y)
    loss.backward()
    opt.step()
    return loss


def main():
    secs = float(sys.argv[1]) if len(sys.argv) > 1 else 4.0
    dev = "cuda"
    torch.manual_seed(0)
    print(f"TORCH version={torch.__version__} cuda={torch.version.cuda} "
          f"device={torch.cuda.get_device_name(0).replace(' ', '_')}", flush=True)
    model = torch.nn.Sequential(
        torch.nn.Linear(2048, 4096), torch.nn.ReLU(),
        torch.nn.Linear(4096, 4096), torch.nn.ReLU(),
        torch.nn.Linear(4096, 1024)).to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    x = torch.randn(1024, 2048, device=dev)
    y = torch.randn(1024, 1024, device=dev)
    for _ in range(5):
        train_step(model, opt, x, y)
    torch.cuda.synchronize()
    t0 = time.monotonic()
    n = 0
    while time.monotonic() - t0 < secs:
        train_step(model, opt, x, y)
        n += 1
        if n % 8 == 0:
            torch.cuda.synchronize()
    torch.cuda.synchronize()
    dt = time.monotonic() - t0
    print(f"TORCH steps={n} seconds={dt:.3f} steps_per_s={n / dt:.2f}", flush=True)
    with open("/proc/self/maps") as f:
        libs = sorted({ln.split()[-1] for ln in f if "libcupti" in ln})
    print("TORCH libcupti=" + (",".join(libs) if libs else "none"), flush=True)


if __name__ == "__main__":
    main()
