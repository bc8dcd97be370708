package harness

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"path/filepath"
	"regexp"

	"locksim/internal/atomicfile"
	"locksim/model"
	"locksim/report"
)

// maxPlainName is the longest test name CaseName keeps as it is;
// casePrefix how much of a longer or unsafe one it keeps before the hash.
const (
	maxPlainName = 100
	casePrefix   = 64
)

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// CaseName is the file name, without its extension, that a check gives a
// test's saved case (testdata/locksim/NAME.json) and HTML report
// (NAME.html): locksim.Check and realclient.Check alike. A test name of up to 100
// letters, digits, '_', '.' and '-' is kept as it is (TestMyLock); any
// other (a subtest's '/', spaces, punctuation, a long table-test name) is
// its first 64 safe characters, the rest replaced by '_', then '-' and 8
// hex digits of the SHA-256 of the whole name: at most 73 bytes, so no
// file system refuses it, and two names that differ only in punctuation
// or past the prefix get different files.
func CaseName(testName string) string {
	safe := unsafeName.ReplaceAllString(testName, "_")
	if safe == testName && safe != "" && len(safe) <= maxPlainName && safe[0] != '.' {
		return safe
	}
	sum := sha256.Sum256([]byte(testName))
	return safe[:min(len(safe), casePrefix)] + "-" + hex.EncodeToString(sum[:4])
}

// ReportDirEnv is the environment variable that gives a check a report
// directory when no WithReportDir does.
const ReportDirEnv = "LOCKSIM_REPORT_DIR"

// SaveReport writes r's HTML report to dir/CaseName(testName).html,
// creating dir when it is missing, atomically, and returns the path. It
// is how locksim.Check and realclient.Check fill the report directory
// (WithReportDir, LOCKSIM_REPORT_DIR).
func SaveReport(dir, testName string, r *model.Result) (string, error) {
	path := filepath.Join(dir, CaseName(testName)+".html")
	return path, atomicfile.Write(path, func(w io.Writer) error {
		return report.HTML(w, r, report.Meta{Design: DesignName(r.Spec)})
	})
}
