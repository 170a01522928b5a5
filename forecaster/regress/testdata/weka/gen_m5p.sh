#!/bin/sh
# Generates the M5P goldens for forecaster/regress (golden_weka_test.go).
# Run from anywhere:  sh forecaster/regress/testdata/weka/gen_m5p.sh
# Needs Debian's weka (3.6.14: /usr/share/java/weka.jar), a JDK (javac,
# java) and r-base-core (Rscript); none of them is needed by the tests.
#
# gen_data.R writes data-pwl.csv and the test grids; M5PGolden.java (compiled
# here into a temporary directory) fits weka.classifiers.trees.M5P on each
# training set with each option set and writes m5p-<data>-<mode>.txt: the
# tree (splits, node sizes, node models) and the predictions on the grid.
# Option sets, all with -M 4 (M5P's default):
#   pruned-unsmoothed    -M 4 -U
#   pruned-smoothed      -M 4
#   unpruned-unsmoothed  -M 4 -N -U
#   unpruned-smoothed    -M 4 -N
set -eu
cd "$(dirname "$0")"
jar=/usr/share/java/weka.jar
Rscript gen_data.R
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
javac -nowarn -cp "$jar" -d "$tmp" M5PGolden.java
for data in pwl friedman1 steps; do
	train=data-$data.csv
	[ -f "$train" ] || train=../trees/data-$data.csv
	for mode in pruned-unsmoothed pruned-smoothed unpruned-unsmoothed unpruned-smoothed; do
		case $mode in
		pruned-unsmoothed) opts="-M 4 -U" ;;
		pruned-smoothed) opts="-M 4" ;;
		unpruned-unsmoothed) opts="-M 4 -N -U" ;;
		unpruned-smoothed) opts="-M 4 -N" ;;
		esac
		# $opts is split into words on purpose.
		# shellcheck disable=SC2086
		java -cp "$jar:$tmp" M5PGolden "$train" "grid-$data.csv" "m5p-$data-$mode.txt" $opts
	done
done
