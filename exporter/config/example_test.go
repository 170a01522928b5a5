package config_test

import (
	"fmt"

	"github.com/storcast/storcast/exporter/config"
)

// A hostile label value is re-quoted: it stays one string in PromQL.
func ExampleParseMatcher() {
	m, err := config.ParseMatcher(`cluster='a"} or vector(1) or {x="'`)
	if err != nil {
		panic(err)
	}
	fmt.Println(m)
	// Output: cluster="a\"} or vector(1) or {x=\""
}

func ExampleMetricRef_Selector() {
	ref, err := config.ParseMetricRef(`swift_proxy{type="object",method="GET"}`)
	if err != nil {
		panic(err)
	}
	cluster, _ := config.ParseMatcher(`swift_cluster="s1"`)
	fmt.Println(ref.Selector("_count", []config.Matcher{cluster}))
	// Output: swift_proxy_count{type="object",method="GET",swift_cluster="s1"}
}
