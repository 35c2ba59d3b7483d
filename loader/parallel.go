package loader

import "sync"

// parallel runs fn(i) for every i in [0, n) with at most limit calls at
// once (DefaultParallel when limit <= 0) and returns when all are done.
// Plan, status and discovery fan out over nodes with it; deploy has its own
// loop because it must stop starting nodes on Ctrl-C.
func parallel(n, limit int, fn func(i int)) {
	if n == 1 {
		// One node (a seed, a standalone server): no goroutine to start
		// and wait for.
		fn(0)
		return
	}
	if limit <= 0 {
		limit = DefaultParallel
	}
	sem := make(chan struct{}, limit)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			fn(i)
		}()
	}
	wg.Wait()
}
