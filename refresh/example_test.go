package refresh_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/redis/rueidis"

	"github.com/scriptctl/scriptctl/refresh"
)

// A catalogue service reads product summaries through the lease protocol.
// The scripts run with EVALSHA (EVAL on NOSCRIPT); set Options.Functions to
// call the functions scriptctl deploy loaded instead.
func Example() {
	ctx := context.Background()
	client, err := rueidis.NewClient(rueidis.ClientOption{
		InitAddress:  []string{exampleAddr}, // a standalone server or any cluster node
		DisableCache: true,
	})
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()

	// Keys default to the manifest's catalog_summary caller:
	// catalog:{product-<id>}:lease and catalog:{product-<id>}:value.
	cache, err := refresh.New(client, refresh.Options{
		LeaseTTL:           10 * time.Second, // longer than a slow load
		CacheTTL:           5 * time.Minute,
		StaleFor:           time.Minute, // serve a summary up to 1m past its TTL while refreshing
		MaxConcurrentLoads: 8,           // origin queries in flight from this process
		OnRejected:         refresh.RejectReread,
	})
	if err != nil {
		log.Fatal(err)
	}

	loadSummary := func(ctx context.Context) ([]byte, error) {
		// Query the product database here.
		return []byte(`{"id":42,"name":"Desk lamp"}`), nil
	}
	for range 2 {
		summary, err := cache.Get(ctx, "42", loadSummary)
		if errors.Is(err, refresh.ErrLeaseLost) {
			log.Print("refresh lost its lease: the load outlived LeaseTTL")
			return
		}
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(string(summary))
	}
	s := cache.Stats()
	fmt.Printf("hits %d, misses %d, loads %d, published %d, rejected %d\n",
		s.Hits, s.Misses, s.Loads, s.PublishesAccepted, s.PublishesRejected)

	// Output:
	// {"id":42,"name":"Desk lamp"}
	// {"id":42,"name":"Desk lamp"}
	// hits 1, misses 1, loads 1, published 1, rejected 0
}
