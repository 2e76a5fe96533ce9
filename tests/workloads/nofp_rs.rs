// SPDX-License-Identifier: GPL-2.0-or-later
// Rust workload for --call-graph dwarf (tests/e2e/t_lld.sh builds it as a
// release build: rustc -C opt-level=3, linked by rust-lld since Rust 1.90
// on x86-64 Linux, no frame pointers): a known chain,
//   main -> nofp_rs::main -> nofp_rs::rs_outer -> nofp_rs::rs_inner -> nofp_rs::rs_leaf
// (spins), for SECS seconds (the first argument, default 1).
use std::collections::HashMap;
use std::hint::black_box;
use std::time::{Duration, Instant};

#[inline(never)]
fn rs_leaf(seed: u64) -> u64 {
    let mut x = seed;
    for i in 0..200_000u64 {
        x = x.wrapping_mul(2862933555777941757).wrapping_add(3037000493 + i);
    }
    x
}

#[inline(never)]
fn rs_inner(m: &mut HashMap<u64, u64>, seed: u64) -> u64 {
    let r = rs_leaf(black_box(seed ^ 3));
    *m.entry(r & 15).or_insert(0) += 1;
    r + 3
}

#[inline(never)]
fn rs_outer(m: &mut HashMap<u64, u64>, seed: u64) -> u64 {
    let v: Vec<u64> = (0..4).map(|i| rs_inner(m, black_box(seed + i))).collect();
    v.iter().sum::<u64>() + 1
}

fn main() {
    let secs: f64 = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(1.0);
    let end = Instant::now() + Duration::from_secs_f64(secs);
    let mut m = HashMap::new();
    let mut s = 0u64;
    while Instant::now() < end {
        s = s.wrapping_add(rs_outer(&mut m, black_box(s)));
    }
    println!("{}", s & 1);
}
