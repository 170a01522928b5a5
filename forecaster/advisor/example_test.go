package advisor_test

import (
	"fmt"
	"os"

	"github.com/storcast/storcast/forecaster/advisor"
)

func Example() {
	data, err := os.ReadFile("testdata/catalog.yml")
	if err != nil {
		panic(err)
	}
	cat, err := advisor.LoadCatalog(data)
	if err != nil {
		panic(err)
	}
	a, err := advisor.Train(cat)
	if err != nil {
		panic(err)
	}
	// The current workload as measured live: 4 MiB sequential writes at
	// 350 MB/s without a rule set.
	w := advisor.Workload{
		advisor.RequestBytes:       4 << 20,
		advisor.SequentialShare:    1,
		advisor.ReadShare:          0.2,
		advisor.OriginalThroughput: 350e6,
	}
	preds, err := a.Predict(w)
	if err != nil {
		panic(err)
	}
	for _, p := range preds {
		fmt.Printf("%-12s boost %+5.1f%% (cross-validated error %.1f points), extrapolated %v\n", p.RuleSet, 100*p.Boost, 100*p.CVError, p.Extrapolated)
	}
	// Both predictions exceed their uncertainty, but read-window's
	// experiments never had a read share below 0.5: its prediction is an
	// extrapolation, and it is not ahead of qos-cap's by its uncertainty.
	adv, err := a.Advise(w)
	fmt.Println("recommend:", adv.RuleSet, err)
	fmt.Println("because:", adv.Reason)
	// Output:
	// qos-cap      boost  +7.6% (cross-validated error 5.7 points), extrapolated false
	// read-window  boost +10.2% (cross-validated error 5.6 points), extrapolated true
	// recommend: qos-cap <nil>
	// because: read-window's +10.2% is extrapolated (the workload is outside its experiments) and exceeds qos-cap's +7.6% by less than its uncertainty 5.6 points
}

func ExampleAdvisor_Recommend() {
	data, _ := os.ReadFile("testdata/catalog.yml")
	cat, _ := advisor.LoadCatalog(data)
	a, err := advisor.Train(cat)
	if err != nil {
		panic(err)
	}
	// Small random reads: every rule set is predicted to hurt, so none is
	// recommended.
	name, ok, err := a.Recommend(advisor.Workload{
		advisor.RequestBytes:       64 << 10,
		advisor.SequentialShare:    0,
		advisor.ReadShare:          0.9,
		advisor.OriginalThroughput: 3e7,
	})
	fmt.Printf("%q %v %v\n", name, ok, err)
	// Output:
	// "" false <nil>
}

func ExampleLoadCatalog_error() {
	_, err := advisor.LoadCatalog([]byte(`
features: [request_bytes, read_share]
rule_sets:
  - name: qos-cap
    common_workload: {request_bytes: 1048576, read_share: 0.1}
    experiments:
      - workload: {request_bytes: 1048576, read_share: 0.1}
        baseline: [1.0e8, 1.1e8]
        with_rule_set: [1.2e8, 1.1e8]
`))
	fmt.Println(err)
	// Output:
	// invalid input: rule_sets[0] (qos-cap).experiments: 1 experiments; need at least 10 to fit and cross-validate an M5 tree
}
