// Command release builds what a release of rlog-ls ships, from the checkout
// it runs in:
//
//   - the rlog-ls binary for each platform, cross-compiled (CGO_ENABLED=0,
//     -trimpath) with the version stamped into main.stampedVersion;
//   - an archive of it per platform, rlog-ls-VERSION-PLATFORM.tar.gz (.zip
//     for Windows), holding a folder of the same name with the binary,
//     LICENSE, README.md and CHANGELOG.md;
//   - the VS Code extension per platform with that binary inside,
//     rlog-ls-VERSION-PLATFORM.vsix, and once without a server,
//     rlog-ls-VERSION.vsix (for platforms without a package of their own:
//     it looks for rlog-ls on PATH);
//   - SHA256SUMS over everything it wrote, in the format of sha256sum -c.
//
// Usage, from anywhere in the repository:
//
//	go run ./scripts/release [-version vX.Y.Z] [-out DIR] [-archives=false] [-vsix=false] [PLATFORM...]
//
// PLATFORM is a VS Code platform name: linux-x64, linux-arm64, darwin-x64,
// darwin-arm64, win32-x64, or universal for the extension without a server;
// none means all of them. The version is -version, else a tag vX.Y.Z on the
// checked-out commit; without either the build is a development build: the
// binaries are not stamped (rlog-ls version reports the commit), the files are
// named "dev", and the extension keeps package.json's version. Archive entries
// and the extension's files carry the commit's time (or SOURCE_DATE_EPOCH), so
// the same commit gives the same archives. The VS Code packages need node and
// `npm ci` in editors/vscode (done here when its node_modules is missing).
package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/rlog-ls/rlog-ls/convert"
)

// platform is one platform a release is built for.
type platform struct {
	Name         string // VS Code's name for it, used in every file name
	GOOS, GOARCH string
}

// platforms are the platforms of a release, in VS Code's names.
var platforms = []platform{
	{"linux-x64", "linux", "amd64"},
	{"linux-arm64", "linux", "arm64"},
	{"darwin-x64", "darwin", "amd64"},
	{"darwin-arm64", "darwin", "arm64"},
	{"win32-x64", "windows", "amd64"},
}

// universal names the extension package without a server.
const universal = "universal"

// exe is the binary's file name on the platform.
func (p platform) exe() string {
	if p.GOOS == "windows" {
		return "rlog-ls.exe"
	}
	return "rlog-ls"
}

// zipped says whether the platform's archive is a zip (Windows) rather than
// a tar.gz.
func (p platform) zipped() bool { return p.GOOS == "windows" }

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "release:", err)
		os.Exit(1)
	}
}

// options is what the command line asks for.
type options struct {
	version   string // vX.Y.Z, or "" for a development build
	out       string
	archives  bool
	vsix      bool
	platforms []platform
	universal bool
}

func run(args []string, log io.Writer) error {
	fl := flag.NewFlagSet("release", flag.ContinueOnError)
	version := fl.String("version", "", "the release version, vX.Y.Z (default: the vX.Y.Z tag on HEAD; none: a development build)")
	out := fl.String("out", "dist", "where to write the artifacts (created if missing)")
	archives := fl.Bool("archives", true, "write the release archives of the binary")
	vsix := fl.Bool("vsix", true, "write the VS Code packages")
	if err := fl.Parse(args); err != nil {
		return err
	}
	root, err := repoRoot()
	if err != nil {
		return err
	}
	var tags []string
	if *version == "" {
		tags, err = tagsAtHead(root)
		if err != nil {
			return err
		}
	}
	o := options{out: *out, archives: *archives, vsix: *vsix}
	if o.version, err = resolveVersion(*version, tags); err != nil {
		return err
	}
	if o.platforms, o.universal, err = parsePlatforms(fl.Args()); err != nil {
		return err
	}
	if !o.vsix && !o.archives {
		return errors.New("nothing to do: -archives=false and -vsix=false")
	}
	if !filepath.IsAbs(o.out) {
		wd, err := os.Getwd()
		if err != nil {
			return err
		}
		o.out = filepath.Join(wd, o.out)
	}
	epoch, err := buildTime(root)
	if err != nil {
		return err
	}
	b := &builder{root: root, opts: o, epoch: epoch, log: log}
	return b.build()
}

// releaseVersion is the form of a release version: VS Code packages need
// MAJOR.MINOR.PATCH, without a pre-release suffix.
var releaseVersion = regexp.MustCompile(`^v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$`)

// resolveVersion returns the version to build: the one given (with or
// without its "v"), else the one release tag among the tags on HEAD, else ""
// for a development build.
func resolveVersion(given string, tagsAtHead []string) (string, error) {
	if given != "" {
		v := given
		if !strings.HasPrefix(v, "v") {
			v = "v" + v
		}
		if !releaseVersion.MatchString(v) {
			return "", fmt.Errorf("-version %q: want vMAJOR.MINOR.PATCH, e.g. v0.2.0 (VS Code packages take no pre-release suffix)", given)
		}
		return v, nil
	}
	var found []string
	for _, t := range tagsAtHead {
		if releaseVersion.MatchString(t) {
			found = append(found, t)
		}
	}
	switch len(found) {
	case 0:
		return "", nil
	case 1:
		return found[0], nil
	}
	return "", fmt.Errorf("HEAD has several release tags (%s): choose one with -version", strings.Join(found, ", "))
}

// parsePlatforms reads the platform names of the command line: none means
// every platform and the universal package.
func parsePlatforms(names []string) ([]platform, bool, error) {
	if len(names) == 0 {
		return slices.Clone(platforms), true, nil
	}
	var out []platform
	uni := false
	for _, n := range names {
		if n == universal {
			uni = true
			continue
		}
		i := slices.IndexFunc(platforms, func(p platform) bool { return p.Name == n })
		if i < 0 {
			var valid []string
			for _, p := range platforms {
				valid = append(valid, p.Name)
			}
			return nil, false, fmt.Errorf("unknown platform %q: want %s or %s", n, strings.Join(valid, ", "), universal)
		}
		if !slices.Contains(out, platforms[i]) {
			out = append(out, platforms[i])
		}
	}
	return out, uni, nil
}

// fileVersion is the version as it appears in file names.
func fileVersion(version string) string {
	if version == "" {
		return "dev"
	}
	return strings.TrimPrefix(version, "v")
}

// archiveName is the name of a platform's release archive, without its
// extension (it is also the folder inside).
func archiveName(version string, p platform) string {
	return "rlog-ls-" + fileVersion(version) + "-" + p.Name
}

// vsixName is the name of the extension package for a platform, or of the
// universal one for nil.
func vsixName(version string, p *platform) string {
	if p == nil {
		return "rlog-ls-" + fileVersion(version) + ".vsix"
	}
	return "rlog-ls-" + fileVersion(version) + "-" + p.Name + ".vsix"
}

// ldflags are the linker flags of a release binary: no symbol table or
// DWARF (panics still print function names and lines), and the version.
func ldflags(version string) string {
	f := "-s -w"
	if version != "" {
		f += " -X main.stampedVersion=" + version
	}
	return f
}

// builder builds the artifacts of one run.
type builder struct {
	root  string
	opts  options
	epoch time.Time
	log   io.Writer
	tmp   string
	sums  map[string]string // file name -> hex SHA-256
}

func (b *builder) build() (err error) {
	if err := os.MkdirAll(b.opts.out, 0o755); err != nil {
		return err
	}
	b.tmp, err = os.MkdirTemp("", "rlog-ls-release-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(b.tmp)
	b.sums = map[string]string{}
	if b.opts.vsix {
		if err := b.prepareExtension(); err != nil {
			return err
		}
		// The extension folder's server/ is this script's: clear what an
		// interrupted run may have left, and leave nothing behind.
		if err := os.RemoveAll(b.serverDir()); err != nil {
			return err
		}
		defer os.RemoveAll(b.serverDir())
	}
	kind := "development build"
	if b.opts.version != "" {
		kind = b.opts.version
	}
	fmt.Fprintf(b.log, "release: %s into %s\n", kind, b.opts.out)
	for _, p := range b.opts.platforms {
		bin, err := b.compile(p)
		if err != nil {
			return err
		}
		if b.opts.archives {
			if err := b.archive(p, bin); err != nil {
				return err
			}
		}
		if b.opts.vsix {
			if err := b.packageVSIX(&p, bin); err != nil {
				return err
			}
		}
	}
	if b.opts.vsix && b.opts.universal {
		if err := b.packageVSIX(nil, ""); err != nil {
			return err
		}
	}
	return b.writeSums()
}

// compile cross-compiles cmd/rlog-ls for a platform and returns the binary.
func (b *builder) compile(p platform) (string, error) {
	bin := filepath.Join(b.tmp, p.Name, p.exe())
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags", ldflags(b.opts.version), "-o", bin, "./cmd/rlog-ls")
	cmd.Dir = b.root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+p.GOOS, "GOARCH="+p.GOARCH)
	cmd.Stdout, cmd.Stderr = b.log, b.log
	fmt.Fprintf(b.log, "release: go build %s/%s\n", p.GOOS, p.GOARCH)
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go build for %s: %v", p.Name, err)
	}
	return bin, nil
}

// archive writes a platform's release archive.
func (b *builder) archive(p platform, bin string) error {
	files, err := b.archiveFiles(p, bin)
	if err != nil {
		return err
	}
	name := archiveName(b.opts.version, p)
	var buf bytes.Buffer
	if p.zipped() {
		err = writeZip(&buf, name, files, b.epoch)
		name += ".zip"
	} else {
		err = writeTarGz(&buf, name, files, b.epoch)
		name += ".tar.gz"
	}
	if err != nil {
		return err
	}
	return b.write(name, buf.Bytes())
}

// archiveFiles are the files of a release archive: the binary and the
// documents a user of the binary needs.
func (b *builder) archiveFiles(p platform, bin string) ([]archiveFile, error) {
	data, err := os.ReadFile(bin)
	if err != nil {
		return nil, err
	}
	files := []archiveFile{{Name: p.exe(), Mode: 0o755, Data: data}}
	for _, doc := range []string{"LICENSE", "README.md", "CHANGELOG.md"} {
		data, err := os.ReadFile(filepath.Join(b.root, doc))
		if err != nil {
			return nil, err
		}
		files = append(files, archiveFile{Name: doc, Mode: 0o644, Data: data})
	}
	return files, nil
}

func (b *builder) extensionDir() string { return filepath.Join(b.root, "editors", "vscode") }

// serverDir is where the extension looks for its bundled server (see
// editors/vscode/src/server.ts).
func (b *builder) serverDir() string { return filepath.Join(b.extensionDir(), "server") }

// vsceScript is vsce's entry point, run with node (portable, unlike the
// .bin shims).
func (b *builder) vsceScript() string {
	return filepath.Join(b.extensionDir(), "node_modules", "@vscode", "vsce", "vsce")
}

// prepareExtension installs the extension's build dependencies when they
// are missing.
func (b *builder) prepareExtension() error {
	if _, err := os.Stat(b.vsceScript()); err == nil {
		return nil
	}
	fmt.Fprintln(b.log, "release: npm ci in editors/vscode")
	cmd := exec.Command("npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund")
	cmd.Dir = b.extensionDir()
	cmd.Stdout, cmd.Stderr = b.log, b.log
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("npm ci in editors/vscode: %v", err)
	}
	return nil
}

// packageVSIX packages the extension for a platform with its binary in
// server/, or the universal package (p nil) without one.
func (b *builder) packageVSIX(p *platform, bin string) error {
	if err := os.RemoveAll(b.serverDir()); err != nil {
		return err
	}
	name := vsixName(b.opts.version, p)
	args := []string{b.vsceScript(), "package", "-o", filepath.Join(b.tmp, name)}
	if p != nil {
		if err := os.MkdirAll(b.serverDir(), 0o755); err != nil {
			return err
		}
		if err := copyFile(bin, filepath.Join(b.serverDir(), p.exe()), 0o755); err != nil {
			return err
		}
		args = append(args, "--target", p.Name)
	}
	if b.opts.version != "" {
		args = append(args, fileVersion(b.opts.version), "--no-update-package-json", "--no-git-tag-version")
	}
	fmt.Fprintf(b.log, "release: vsce package %s\n", name)
	cmd := exec.Command("node", args...)
	cmd.Dir = b.extensionDir()
	// vsce gives every file this time and sorts them: reproducible packages.
	cmd.Env = append(os.Environ(), "SOURCE_DATE_EPOCH="+strconv.FormatInt(b.epoch.Unix(), 10))
	cmd.Stdout, cmd.Stderr = b.log, b.log
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("vsce package %s: %v", name, err)
	}
	if err := os.RemoveAll(b.serverDir()); err != nil {
		return err
	}
	data, err := os.ReadFile(filepath.Join(b.tmp, name))
	if err != nil {
		return err
	}
	return b.write(name, data)
}

// write writes an artifact into the output folder (whole or not at all) and
// records its checksum.
func (b *builder) write(name string, data []byte) error {
	sum := sha256.Sum256(data)
	b.sums[name] = hex.EncodeToString(sum[:])
	if _, err := convert.WriteFileAtomic(b.opts.out, name, data, true); err != nil {
		return err
	}
	fmt.Fprintf(b.log, "release: wrote %s\n", filepath.Join(b.opts.out, name))
	return nil
}

// writeSums writes SHA256SUMS for the files of this run.
func (b *builder) writeSums() error {
	_, err := convert.WriteFileAtomic(b.opts.out, "SHA256SUMS", sha256Sums(b.sums), true)
	if err == nil {
		fmt.Fprintf(b.log, "release: wrote %s (%d files)\n", filepath.Join(b.opts.out, "SHA256SUMS"), len(b.sums))
	}
	return err
}

// sha256Sums formats checksums as sha256sum does (two spaces: text mode),
// sorted by file name.
func sha256Sums(sums map[string]string) []byte {
	names := make([]string, 0, len(sums))
	for n := range sums {
		names = append(names, n)
	}
	sort.Strings(names)
	var buf bytes.Buffer
	for _, n := range names {
		fmt.Fprintf(&buf, "%s  %s\n", sums[n], n)
	}
	return buf.Bytes()
}

func copyFile(src, dst string, mode os.FileMode) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	if err := os.WriteFile(dst, data, mode); err != nil {
		return err
	}
	return os.Chmod(dst, mode) // WriteFile's mode is filtered by the umask
}

// repoRoot is the folder of the main module's go.mod.
func repoRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %v", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", errors.New("run inside the rlog-ls repository (no go.mod found)")
	}
	return filepath.Dir(mod), nil
}

// tagsAtHead lists the tags on the checked-out commit; none outside git.
func tagsAtHead(root string) ([]string, error) {
	if _, err := os.Stat(filepath.Join(root, ".git")); err != nil {
		return nil, nil
	}
	out, err := gitOutput(root, "tag", "--points-at", "HEAD")
	if err != nil {
		return nil, err
	}
	return strings.Fields(out), nil
}

// buildTime is the time the artifacts' files carry: SOURCE_DATE_EPOCH when
// set, else the commit's time, else (no git) the Unix epoch.
func buildTime(root string) (time.Time, error) {
	if s := os.Getenv("SOURCE_DATE_EPOCH"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return time.Time{}, fmt.Errorf("SOURCE_DATE_EPOCH=%q: %v", s, err)
		}
		return time.Unix(n, 0).UTC(), nil
	}
	if _, err := os.Stat(filepath.Join(root, ".git")); err != nil {
		return time.Unix(0, 0).UTC(), nil
	}
	out, err := gitOutput(root, "log", "-1", "--format=%ct")
	if err != nil {
		return time.Time{}, err
	}
	n, err := strconv.ParseInt(strings.TrimSpace(out), 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("git log: commit time %q: %v", out, err)
	}
	return time.Unix(n, 0).UTC(), nil
}

func gitOutput(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return string(out), nil
}
