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
	// catalog:{product-<id>}:lease, catalog:{product-<id>}:value and
	// catalog:{product-<id>}:gen.
	cache, err := refresh.New(client, refresh.Options{
		LeaseTTL:           10 * time.Second, // renewed while a load runs longer than 5s
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
		if errors.Is(err, refresh.ErrLeaseLost) || errors.Is(err, refresh.ErrInvalidated) {
			log.Print("the refresh was rejected: ", err)
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

// The service that updates a product calls Invalidate after its database
// transaction commits: a refresh that read the product before the update
// can no longer publish it, and the next Get loads the new summary.
func ExampleCache_Invalidate() {
	ctx := context.Background()
	client, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{exampleAddr}, DisableCache: true})
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()
	cache, err := refresh.New(client, refresh.Options{})
	if err != nil {
		log.Fatal(err)
	}
	name := "Desk lamp"
	load := func(context.Context) ([]byte, error) { return []byte(name), nil }

	v, _ := cache.Get(ctx, "43", load)
	fmt.Println(string(v))

	name = "Desk lamp, brass" // the update commits
	gen, err := cache.Invalidate(ctx, "43")
	if err != nil {
		log.Fatal(err)
	}
	v, _ = cache.Get(ctx, "43", load)
	fmt.Println(string(v), "generation", gen)

	// Output:
	// Desk lamp
	// Desk lamp, brass generation 1
}
