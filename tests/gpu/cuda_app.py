# SPDX-License-Identifier: GPL-2.0-or-later
# cuda_app.c in Python, for zt's GPU tests of Python launch stacks
# (tests/e2e/t_gpu_python.sh): through ctypes alone, on the CUDA driver API
# (libcuda.so.1: a real driver, or the tests' stand-in found through
# LD_LIBRARY_PATH), it loads a cubin (nvcc -cubin of tests/gpu/kernels.cu),
# copies data to the device and launches its kernels from Python functions
# on call paths a launch stack must show (main -> run_frames ->
# launch_saxpy, main -> run_frames -> step_physics -> launch_hot,
# main -> run_frames -> step_physics for scale), copies back and burns some
# CPU in Python (burn_cpu). Kernel arguments are laid out as cuda_app.c's.
# Each cuLaunchKernel call is on one line that ends in a "# launch: KERNEL"
# comment, so the test finds its line number with grep.
#   cuda_app.py CUBIN [FRAMES]     exits 2 when CUDA has no device
import ctypes
import sys

N = 4096

cuda = None
k_saxpy = ctypes.c_void_p()
k_hot = ctypes.c_void_p()
k_scale = ctypes.c_void_p()
dx = ctypes.c_uint64()
dy = ctypes.c_uint64()
CUDA_ERROR_NO_DEVICE = 100
CUDA_ERROR_STUB_LIBRARY = 34


def check(r, what):
    if r == 0:
        return
    name = ctypes.c_char_p()
    cuda.cuGetErrorName(r, ctypes.byref(name))
    print("cuda_app.py: %s: %s (%d)" % (what, (name.value or b"?").decode(), r), file=sys.stderr)
    sys.exit(2 if r in (CUDA_ERROR_NO_DEVICE, CUDA_ERROR_STUB_LIBRARY) else 1)


def args_of(*vals):
    return (ctypes.c_void_p * len(vals))(*[ctypes.cast(ctypes.byref(v), ctypes.c_void_p) for v in vals])


def launch_saxpy(a):
    n = ctypes.c_int(N)
    fa = ctypes.c_float(a)
    args = args_of(n, fa, dx, dy)
    r = cuda.cuLaunchKernel(k_saxpy, N // 256, 1, 1, 256, 1, 1, 0, None, args, None)  # launch: saxpy
    check(r, "launch saxpy")


def launch_hot(rounds):
    n = ctypes.c_int(N)
    rd = ctypes.c_int(rounds)
    args = args_of(dy, n, rd)
    r = cuda.cuLaunchKernel(k_hot, N // 128, 1, 1, 128, 1, 1, 1024, None, args, None)  # launch: hot_loop
    check(r, "launch hot_loop")


def step_physics(frame):
    launch_hot(16 + frame % 8)
    if frame % 4 == 0:
        n = ctypes.c_int(N)
        f = ctypes.c_float(0.5)
        args = args_of(dy, n, f)
        r = cuda.cuLaunchKernel(k_scale, N // 256, 1, 1, 256, 1, 1, 0, None, args, None)  # launch: scale
        check(r, "launch scale")


def burn_cpu():
    s = 0.0
    for i in range(600000):
        s += i * 0.5
    return s


def run_frames(frames):
    for f in range(frames):
        launch_saxpy(2.0)
        step_physics(f)
        burn_cpu()


def main():
    global cuda
    if len(sys.argv) < 2:
        print("usage: cuda_app.py CUBIN [FRAMES]", file=sys.stderr)
        return 1
    frames = int(sys.argv[2]) if len(sys.argv) > 2 else 50
    try:
        with open(sys.argv[1], "rb") as f:
            cubin = f.read()
    except OSError as e:
        print("cuda_app.py: cannot read %s: %s" % (sys.argv[1], e), file=sys.stderr)
        return 1
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
    except OSError as e:
        print("cuda_app.py: no CUDA driver: %s" % e, file=sys.stderr)
        return 2
    vp, u = ctypes.c_void_p, ctypes.c_uint
    cuda.cuLaunchKernel.argtypes = [vp, u, u, u, u, u, u, u, vp, ctypes.POINTER(vp), vp]
    cuda.cuModuleLoadData.argtypes = [ctypes.POINTER(vp), ctypes.c_char_p]
    cuda.cuModuleGetFunction.argtypes = [ctypes.POINTER(vp), vp, ctypes.c_char_p]
    cuda.cuMemAlloc_v2.argtypes = [ctypes.POINTER(ctypes.c_uint64), ctypes.c_size_t]
    cuda.cuMemcpyHtoD_v2.argtypes = [ctypes.c_uint64, vp, ctypes.c_size_t]
    cuda.cuMemcpyDtoH_v2.argtypes = [vp, ctypes.c_uint64, ctypes.c_size_t]
    cuda.cuMemsetD32_v2.argtypes = [ctypes.c_uint64, u, ctypes.c_size_t]
    cuda.cuMemFree_v2.argtypes = [ctypes.c_uint64]
    cuda.cuCtxSetCurrent.argtypes = [vp]
    cuda.cuModuleUnload.argtypes = [vp]

    count = ctypes.c_int(0)
    dev = ctypes.c_int(0)
    ctx = vp()
    mod = vp()
    check(cuda.cuInit(0), "cuInit")
    check(cuda.cuDeviceGetCount(ctypes.byref(count)), "cuDeviceGetCount")
    if not count.value:
        check(CUDA_ERROR_NO_DEVICE, "no device")
    check(cuda.cuDeviceGet(ctypes.byref(dev), 0), "cuDeviceGet")
    check(cuda.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev), "cuDevicePrimaryCtxRetain")
    check(cuda.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")
    check(cuda.cuModuleLoadData(ctypes.byref(mod), cubin), "cuModuleLoadData")
    check(cuda.cuModuleGetFunction(ctypes.byref(k_saxpy), mod, b"saxpy"), "get saxpy")
    check(cuda.cuModuleGetFunction(ctypes.byref(k_hot), mod, b"hot_loop"), "get hot_loop")
    check(cuda.cuModuleGetFunction(ctypes.byref(k_scale), mod, b"_Z5scalePfif"), "get scale")
    host = (ctypes.c_float * N)(*range(N))
    check(cuda.cuMemAlloc_v2(ctypes.byref(dx), ctypes.sizeof(host)), "cuMemAlloc")
    check(cuda.cuMemAlloc_v2(ctypes.byref(dy), ctypes.sizeof(host)), "cuMemAlloc")
    check(cuda.cuMemcpyHtoD_v2(dx, host, ctypes.sizeof(host)), "cuMemcpyHtoD")
    check(cuda.cuMemsetD32_v2(dy, 0, N), "cuMemsetD32")
    run_frames(frames)
    check(cuda.cuCtxSynchronize(), "cuCtxSynchronize")
    check(cuda.cuMemcpyDtoH_v2(host, dy, ctypes.sizeof(host)), "cuMemcpyDtoH")
    cuda.cuMemFree_v2(dx)
    cuda.cuMemFree_v2(dy)
    cuda.cuModuleUnload(mod)
    cuda.cuDevicePrimaryCtxRelease_v2(dev)
    print("cuda_app.py: %d frames, y[1] = %g" % (frames, host[1]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
