// Package docs holds the project's documentation; its test checks that
// every link and reference in the repository resolves inside it.
package docs

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// trackedFiles lists the repository's files as git tracks them (plus
// untracked, unignored ones), relative to the repository root.
func trackedFiles(t *testing.T) (root string, files []string) {
	t.Helper()
	out, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Fatalf("git rev-parse: %v", err)
	}
	root = strings.TrimSpace(string(out))
	ls := exec.Command("git", "ls-files", "--cached", "--others", "--exclude-standard")
	ls.Dir = root
	out, err = ls.Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	for _, f := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if f == "" || strings.Contains(f, "node_modules") {
			continue
		}
		// Regular files only: a link (a node_modules linked into a
		// checkout, say) is not the repository's text.
		if st, err := os.Lstat(filepath.Join(root, f)); err != nil || !st.Mode().IsRegular() {
			continue
		}
		files = append(files, f)
	}
	return root, files
}

var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// TestMarkdownLinksResolve: every relative link of every Markdown file
// names a file or directory of the repository.
func TestMarkdownLinksResolve(t *testing.T) {
	root, files := trackedFiles(t)
	checked := 0
	for _, f := range files {
		if !strings.HasSuffix(f, ".md") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range mdLink.FindAllStringSubmatch(string(data), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "#") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			target, _, _ = strings.Cut(target, "#")
			p := filepath.Join(root, filepath.Dir(f), target)
			if _, err := os.Stat(p); err != nil {
				t.Errorf("%s: link %q does not resolve in the repository", f, m[1])
			}
			checked++
		}
	}
	if checked == 0 {
		t.Fatal("no Markdown link found: the walk is broken")
	}
}

// outside matches references a reader of the repository cannot follow:
// the developers' notes and paper copies that live beside the repository,
// and issue numbers of the tracker.
var outside = regexp.MustCompile(`\.\./shared/|shared/MODELS\.md|shared/papers|\bMODELS\.md\b|papers/[a-z-]+\.txt|(?i:\bissue [0-9]+\b|\bissue #[0-9]+)`)

// TestNoReferencesOutsideTheRepository: code, docs and build files cite
// papers by title and explain the math in docs/, never a file outside the
// repository or an issue number.
func TestNoReferencesOutsideTheRepository(t *testing.T) {
	root, files := trackedFiles(t)
	self := filepath.Join("docs", "links_test.go")
	for _, f := range files {
		if f == self || strings.HasSuffix(f, ".json") || strings.Contains(f, "testdata/") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(data), "\n") {
			if m := outside.FindString(line); m != "" {
				t.Errorf("%s:%d: %q refers outside the repository", f, i+1, m)
			}
		}
	}
}

// TestReferencePatternCanFail: the pattern catches what it is for.
func TestReferencePatternCanFail(t *testing.T) {
	for _, s := range []string{"see shared/MODELS.md", "papers/m-lisp-basak.txt", "(issue 7)", "MODELS.md section 2", "Issue #12"} {
		if !outside.MatchString(s) {
			t.Errorf("%q not caught", s)
		}
	}
	for _, s := range []string{"docs/models.md", "the issuer 7", "tissue 3"} {
		if outside.MatchString(s) {
			t.Errorf("%q caught", s)
		}
	}
}
