// SPDX-License-Identifier: GPL-2.0-or-later
// A Go workload with known functions for zt's .gopclntab tests: leaves that
// stay functions (go:noinline), helpers the compiler inlines (inlMix calls
// inlAdd: a two-level inline chain), a method, and goroutines. Usage:
// gohot [SECONDS] (default 1).
package main

import (
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"
)

var sink int

// inlAdd and inlMix are small enough to be inlined wherever they are called.
func inlAdd(a, b int) int {
	return a*31 + b
}

func inlMix(x int) int {
	return inlAdd(x, x>>3) ^ 0x5bd1e995
}

//go:noinline
func hotLeaf(n int) int {
	s := 0
	for i := 0; i < n; i++ {
		s += i * i % 7
	}
	return s
}

//go:noinline
func spinMix(n int) int {
	s := 1
	for i := 0; i < n; i++ {
		s = inlMix(s + i)
	}
	return s
}

type worker struct {
	id    int
	total int
}

//go:noinline
func (w *worker) run(until time.Time) {
	for time.Now().Before(until) {
		w.total += spinMix(20000) + hotLeaf(10000)
	}
}

func main() {
	secs := 1.0
	if len(os.Args) > 1 {
		if v, err := strconv.ParseFloat(os.Args[1], 64); err == nil {
			secs = v
		}
	}
	until := time.Now().Add(time.Duration(secs * float64(time.Second)))
	var wg sync.WaitGroup
	ws := make([]*worker, 3)
	for i := range ws {
		ws[i] = &worker{id: i}
		wg.Add(1)
		go func(w *worker) {
			defer wg.Done()
			w.run(until)
		}(ws[i])
	}
	for time.Now().Before(until) {
		sink += inlMix(hotLeaf(5000))
	}
	wg.Wait()
	for _, w := range ws {
		sink += w.total
	}
	fmt.Println("gohot", sink != 0)
}
