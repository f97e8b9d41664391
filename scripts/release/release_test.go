package main

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestResolveVersion(t *testing.T) {
	for _, c := range []struct {
		given string
		tags  []string
		want  string
		err   string
	}{
		{given: "v1.2.3", want: "v1.2.3"},
		{given: "1.2.3", want: "v1.2.3"},
		{given: "v0.10.0", tags: []string{"v0.9.0"}, want: "v0.10.0"}, // the flag wins
		{given: "v1.2", err: "want vMAJOR.MINOR.PATCH"},
		{given: "v1.2.3-rc.1", err: "no pre-release suffix"},
		{given: "v01.2.3", err: "want vMAJOR.MINOR.PATCH"},
		{given: "latest", err: "want vMAJOR.MINOR.PATCH"},
		{tags: nil, want: ""},
		{tags: []string{"nightly", "v0.3.0"}, want: "v0.3.0"},
		{tags: []string{"v0.3.0-rc.1"}, want: ""},
		{tags: []string{"v0.3.0", "v0.3.1"}, err: "several release tags (v0.3.0, v0.3.1)"},
	} {
		got, err := resolveVersion(c.given, c.tags)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("resolveVersion(%q, %q) = %q, %v; want an error with %q", c.given, c.tags, got, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("resolveVersion(%q, %q) = %q, %v; want %q", c.given, c.tags, got, err, c.want)
		}
	}
}

func TestParsePlatforms(t *testing.T) {
	all, uni, err := parsePlatforms(nil)
	if err != nil || len(all) != 5 || !uni {
		t.Fatalf("no names: %v, universal %v, %v; want the five platforms and the universal package", all, uni, err)
	}
	got, uni, err := parsePlatforms([]string{"win32-x64", "linux-x64", "win32-x64"})
	if err != nil || uni || len(got) != 2 || got[0].GOOS != "windows" || got[1].GOOS != "linux" || got[1].GOARCH != "amd64" {
		t.Errorf("win32-x64 linux-x64 win32-x64: %v, universal %v, %v", got, uni, err)
	}
	if got, uni, err := parsePlatforms([]string{"universal"}); err != nil || !uni || len(got) != 0 {
		t.Errorf("universal: %v, %v, %v", got, uni, err)
	}
	if _, _, err := parsePlatforms([]string{"windows-x64"}); err == nil || !strings.Contains(err.Error(), "win32-x64") {
		t.Errorf("windows-x64: %v, want an error listing the valid names", err)
	}
}

func TestNames(t *testing.T) {
	win := platforms[4]
	for got, want := range map[string]string{
		archiveName("v0.2.0", platforms[0]): "rlog-ls-0.2.0-linux-x64",
		archiveName("", win):                "rlog-ls-dev-win32-x64",
		vsixName("v0.2.0", &win):            "rlog-ls-0.2.0-win32-x64.vsix",
		vsixName("v0.2.0", nil):             "rlog-ls-0.2.0.vsix",
		vsixName("", nil):                   "rlog-ls-dev.vsix",
		win.exe():                           "rlog-ls.exe",
		platforms[3].exe():                  "rlog-ls",
		ldflags("v0.2.0"):                   "-s -w -X main.stampedVersion=v0.2.0",
		ldflags(""):                         "-s -w",
	} {
		if got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
}

var testFiles = []archiveFile{
	{Name: "rlog-ls", Mode: 0o755, Data: []byte("#!/bin/sh\necho binary\n")},
	{Name: "LICENSE", Mode: 0o644, Data: []byte("MIT\n")},
}

func TestTarGz(t *testing.T) {
	mtime := time.Unix(1_700_000_000, 0)
	var buf bytes.Buffer
	if err := writeTarGz(&buf, "rlog-ls-0.2.0-linux-x64", testFiles, mtime); err != nil {
		t.Fatal(err)
	}
	// The same files give the same bytes.
	var again bytes.Buffer
	if err := writeTarGz(&again, "rlog-ls-0.2.0-linux-x64", testFiles, mtime); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), again.Bytes()) {
		t.Error("two archives of the same files differ")
	}
	var names []string
	for _, e := range readTarGz(t, buf.Bytes()) {
		names = append(names, e.Name)
		if !e.ModTime.Equal(mtime) || e.Uid != 0 || e.Gid != 0 {
			t.Errorf("%s: time %v, owner %d:%d; want %v, 0:0", e.Name, e.ModTime, e.Uid, e.Gid, mtime)
		}
		for _, f := range testFiles {
			if e.Name == "rlog-ls-0.2.0-linux-x64/"+f.Name && (e.Mode != f.Mode || !bytes.Equal(e.Data, f.Data)) {
				t.Errorf("%s: mode %o, %q; want %o, %q", e.Name, e.Mode, e.Data, f.Mode, f.Data)
			}
		}
	}
	want := []string{"rlog-ls-0.2.0-linux-x64/", "rlog-ls-0.2.0-linux-x64/rlog-ls", "rlog-ls-0.2.0-linux-x64/LICENSE"}
	if strings.Join(names, " ") != strings.Join(want, " ") {
		t.Errorf("entries %q, want %q", names, want)
	}
}

// entry is a file read back from an archive.
type entry struct {
	Name     string
	Mode     fs.FileMode
	ModTime  time.Time
	Uid, Gid int
	Data     []byte
}

func readTarGz(t *testing.T, data []byte) []entry {
	t.Helper()
	gz, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	var out []entry
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, entry{h.Name, h.FileInfo().Mode(), h.ModTime, h.Uid, h.Gid, body})
	}
}

func readZip(t *testing.T, data []byte) []entry {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	var out []entry
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, entry{Name: f.Name, Mode: f.Mode(), ModTime: f.Modified, Data: body})
	}
	return out
}

func TestZip(t *testing.T) {
	mtime := time.Date(2026, 1, 2, 3, 4, 6, 0, time.UTC) // zip keeps even seconds
	var buf bytes.Buffer
	if err := writeZip(&buf, "rlog-ls-0.2.0-win32-x64", testFiles, mtime); err != nil {
		t.Fatal(err)
	}
	entries := readZip(t, buf.Bytes())
	if len(entries) != 3 || entries[0].Name != "rlog-ls-0.2.0-win32-x64/" || !entries[0].Mode.IsDir() {
		t.Fatalf("entries %v", entries)
	}
	for i, f := range testFiles {
		e := entries[i+1]
		if e.Name != "rlog-ls-0.2.0-win32-x64/"+f.Name || e.Mode != f.Mode || !bytes.Equal(e.Data, f.Data) || !e.ModTime.Equal(mtime) {
			t.Errorf("%s: mode %v, time %v, %q; want %v, %v, %q", e.Name, e.Mode, e.ModTime, e.Data, f.Mode, mtime, f.Data)
		}
	}
	if u, err := exec.LookPath("unzip"); err == nil {
		// Info-ZIP's unzip keeps the Unix mode, as users extract it.
		dir := t.TempDir()
		p := filepath.Join(dir, "a.zip")
		if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command(u, "-q", p, "-d", dir).CombinedOutput(); err != nil {
			t.Fatalf("unzip: %v\n%s", err, out)
		}
		st, err := os.Stat(filepath.Join(dir, "rlog-ls-0.2.0-win32-x64", "rlog-ls"))
		if err != nil || st.Mode().Perm() != 0o755 {
			t.Errorf("unzipped binary: %v, %v; want mode 0755", st, err)
		}
	}
}

func TestSHA256Sums(t *testing.T) {
	got := string(sha256Sums(map[string]string{"b.zip": "22", "a.tar.gz": "11"}))
	if want := "11  a.tar.gz\n22  b.zip\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestGoLine keeps go.mod's go line on a .0 release: a toolchain older than
// the line downloads a newer one, so X.Y.0 lets every X.Y toolchain build.
func TestGoLine(t *testing.T) {
	root := repoDir(t)
	data, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^go (\d+\.\d+)(\.\d+)?$`).FindSubmatch(data)
	if m == nil || string(m[2]) != ".0" {
		t.Errorf("go.mod: go line %q, want go X.Y.0", m)
	}
}

// TestBundledFolder checks that the release script puts the server where
// the extension looks for it.
func TestBundledFolder(t *testing.T) {
	root := repoDir(t)
	src, err := os.ReadFile(filepath.Join(root, "editors", "vscode", "src", "server.ts"))
	if err != nil {
		t.Fatal(err)
	}
	b := &builder{root: root}
	want := "export const bundledFolder = '" + filepath.Base(b.serverDir()) + "';"
	if !strings.Contains(string(src), want) {
		t.Errorf("editors/vscode/src/server.ts does not say %q", want)
	}
	ignore, err := os.ReadFile(filepath.Join(root, "editors", "vscode", ".vscodeignore"))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(ignore), "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "server") {
			t.Errorf(".vscodeignore leaves the server out of the package: %q", l)
		}
	}
}

func repoDir(t *testing.T) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// hostPlatform is the release platform of the machine running the tests.
func hostPlatform(t *testing.T) platform {
	for _, p := range platforms {
		if p.GOOS == runtime.GOOS && p.GOARCH == runtime.GOARCH {
			return p
		}
	}
	t.Skipf("no release platform for %s/%s", runtime.GOOS, runtime.GOARCH)
	return platform{}
}

// TestReleaseBuild runs the script for this machine's platform, as a release
// of v9.8.7, and checks what it wrote: the archive with a binary that runs and
// carries the version and the build settings, and SHA256SUMS over it. With the
// extension's dependencies installed it also packages the .vsix and checks
// that the server is inside, executable, and that the package says its
// platform and version.
func TestReleaseBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds rlog-ls and the extension (-short)")
	}
	host := hostPlatform(t)
	root := repoDir(t)
	_, vsceErr := os.Stat((&builder{root: root}).vsceScript())
	withVSIX := vsceErr == nil
	if !withVSIX {
		if os.Getenv("RLOG_REQUIRE_EDITORS") == "1" {
			t.Fatal("editors/vscode has no node_modules (npm ci) and RLOG_REQUIRE_EDITORS=1")
		}
		t.Log("editors/vscode has no node_modules (npm ci): the .vsix is not built")
	}
	out := t.TempDir()
	var log bytes.Buffer
	args := []string{"-version", "9.8.7", "-out", out, "-vsix=" + map[bool]string{true: "true", false: "false"}[withVSIX], host.Name}
	if err := run(args, &log); err != nil {
		t.Fatalf("release %v: %v\n%s", args, err, log.String())
	}

	sums := readSums(t, filepath.Join(out, "SHA256SUMS"))
	archive := archiveName("v9.8.7", host) + map[bool]string{true: ".zip", false: ".tar.gz"}[host.zipped()]
	want := []string{archive}
	if withVSIX {
		want = append(want, vsixName("v9.8.7", &host))
	}
	if len(sums) != len(want) {
		t.Errorf("SHA256SUMS lists %v, want %v", sums, want)
	}
	for _, name := range want {
		data, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(data)
		if sums[name] != hex.EncodeToString(sum[:]) {
			t.Errorf("%s: SHA256SUMS says %q, the file is %x", name, sums[name], sum)
		}
	}

	bin := extractBinary(t, filepath.Join(out, archive), host)
	checkBinary(t, root, bin)

	if withVSIX {
		checkVSIX(t, filepath.Join(out, vsixName("v9.8.7", &host)), host)
		if _, err := os.Stat(filepath.Join(root, "editors", "vscode", "server")); !os.IsNotExist(err) {
			t.Errorf("the script left editors/vscode/server behind: %v", err)
		}
	}
}

func readSums(t *testing.T, path string) map[string]string {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sums := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		sum, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok || len(sum) != 64 {
			t.Fatalf("SHA256SUMS: line %q is not HEX  NAME", sc.Text())
		}
		sums[name] = sum
	}
	return sums
}

// extractBinary takes the binary out of a release archive into a temporary
// folder, checking the archive's layout on the way.
func extractBinary(t *testing.T, archive string, p platform) string {
	dir := archiveName("v9.8.7", p) + "/"
	data, err := os.ReadFile(archive)
	if err != nil {
		t.Fatal(err)
	}
	read := readTarGz
	if p.zipped() {
		read = readZip
	}
	var entries []string
	var bin []byte
	var mode fs.FileMode
	for _, e := range read(t, data) {
		entries = append(entries, e.Name)
		if e.Name == dir+p.exe() {
			bin, mode = e.Data, e.Mode
		}
	}
	want := []string{dir, dir + p.exe(), dir + "LICENSE", dir + "README.md", dir + "CHANGELOG.md"}
	if strings.Join(entries, " ") != strings.Join(want, " ") {
		t.Errorf("archive entries %q, want %q", entries, want)
	}
	if mode.Perm() != 0o755 {
		t.Errorf("the binary's mode in the archive is %v, want 0755", mode)
	}
	path := filepath.Join(t.TempDir(), p.exe())
	if err := os.WriteFile(path, bin, 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// checkBinary runs the archived binary and reads its build settings.
func checkBinary(t *testing.T, root, bin string) {
	out, err := exec.Command(bin, "check", filepath.Join(root, "testdata", "sample.rlog")).CombinedOutput()
	if !strings.Contains(string(out), "1 file checked") {
		t.Errorf("rlog-ls check from the archive: %v\n%s", err, out)
	}
	version, err := exec.Command(bin, "version").CombinedOutput()
	if err != nil {
		t.Fatalf("rlog-ls version: %v\n%s", err, version)
	}
	info, err := exec.Command("go", "version", "-m", bin).CombinedOutput()
	if err != nil {
		t.Fatalf("go version -m: %v\n%s", err, info)
	}
	// (With -trimpath the linker flags are not recorded; TestNames checks them.)
	for _, want := range []string{"-trimpath=true", "CGO_ENABLED=0"} {
		if !strings.Contains(string(info), want) {
			t.Errorf("the binary was not built with %s:\n%s", want, info)
		}
	}
	// rlog-ls version prints the stamp once cmd/rlog-ls declares the
	// variable (until then the linker ignores -X main.stampedVersion).
	if declaresStampedVersion(t, filepath.Join(root, "cmd", "rlog-ls")) && !strings.Contains(string(version), "v9.8.7") {
		t.Errorf("rlog-ls version = %q, want the stamped v9.8.7", version)
	}
}

// declaresStampedVersion says whether package main of dir declares the
// variable release builds stamp.
func declaresStampedVersion(t *testing.T, dir string) bool {
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	decl := regexp.MustCompile(`(?m)^\s*(var\s+)?stampedVersion\s+(string\b|=)`)
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if decl.Match(src) {
			return true
		}
	}
	t.Log("cmd/rlog-ls does not declare stampedVersion yet: rlog-ls version cannot print the stamp")
	return false
}

// checkVSIX reads a platform package: the server inside and executable, the
// license, and the manifest's platform and version.
func checkVSIX(t *testing.T, path string, p platform) {
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	files := map[string]*zip.File{}
	for _, f := range zr.File {
		files[f.Name] = f
	}
	server := files["extension/server/"+p.exe()]
	if server == nil {
		t.Fatalf("%s has no extension/server/%s", path, p.exe())
	}
	if server.Mode().Perm()&0o111 == 0 {
		t.Errorf("extension/server/%s is not executable in the package: %v", p.exe(), server.Mode())
	}
	if files["extension/LICENSE.txt"] == nil || files["extension/changelog.md"] == nil {
		t.Error("the package has no LICENSE or CHANGELOG")
	}
	manifest := readZipFile(t, files["extension.vsixmanifest"])
	if !strings.Contains(manifest, `Version="9.8.7"`) || !strings.Contains(manifest, `TargetPlatform="`+p.Name+`"`) {
		t.Errorf("extension.vsixmanifest does not say version 9.8.7 for %s:\n%s", p.Name, manifest)
	}
	var pkg struct{ Version, License string }
	if err := json.Unmarshal([]byte(readZipFile(t, files["extension/package.json"])), &pkg); err != nil {
		t.Fatal(err)
	}
	if pkg.Version != "9.8.7" || pkg.License != "MIT" {
		t.Errorf("the packaged package.json says version %q, license %q", pkg.Version, pkg.License)
	}
}

func readZipFile(t *testing.T, f *zip.File) string {
	if f == nil {
		t.Fatal("missing file in the package")
	}
	rc, err := f.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	data, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
