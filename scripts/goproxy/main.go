// Command goproxy writes a Go module at a version into a directory laid out as the Go module proxy protocol
// defines (MODULE/@v/list, VERSION.info, VERSION.mod, VERSION.zip), so that `GOPROXY=file://DIR go get
// MODULE@VERSION` fetches exactly what the module's tag would serve once pushed. The zip is made by
// golang.org/x/mod/zip, which applies the go command's own rules (path prefix, excluded files, size limits).
//
//	go run . -module-dir ../../clients/go -version v0.1.0 -time 2026-01-02T03:04:05Z -out DIR
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"
	modzip "golang.org/x/mod/zip"
)

func main() {
	moduleDir := flag.String("module-dir", "", "the directory holding the module's go.mod")
	version := flag.String("version", "", "the module version, e.g. v0.1.0 (its tag is DIR/vX.Y.Z for a module in a subdirectory)")
	at := flag.String("time", "", "the version's time (RFC 3339), as the proxy's .info reports it: the release commit's")
	out := flag.String("out", "", "the proxy directory to write into (GOPROXY=file://OUT)")
	flag.Parse()
	if *moduleDir == "" || *version == "" || *at == "" || *out == "" {
		flag.Usage()
		os.Exit(2)
	}
	if err := write(*moduleDir, *version, *at, *out); err != nil {
		fmt.Fprintln(os.Stderr, "goproxy:", err)
		os.Exit(1)
	}
}

func write(moduleDir, version, at, out string) error {
	goMod, err := os.ReadFile(filepath.Join(moduleDir, "go.mod"))
	if err != nil {
		return err
	}
	path := modfile.ModulePath(goMod)
	if path == "" {
		return fmt.Errorf("%s/go.mod: no module line", moduleDir)
	}
	// Check refuses what `go get` would: a non-canonical version, or a major version the path does not carry.
	if err := module.Check(path, version); err != nil {
		return err
	}
	when, err := time.Parse(time.RFC3339, at)
	if err != nil {
		return fmt.Errorf("-time: %w", err)
	}
	escPath, err := module.EscapePath(path)
	if err != nil {
		return err
	}
	escVersion, err := module.EscapeVersion(version)
	if err != nil {
		return err
	}
	dir := filepath.Join(out, filepath.FromSlash(escPath), "@v")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	zipFile, err := os.Create(filepath.Join(dir, escVersion+".zip"))
	if err != nil {
		return err
	}
	if err := modzip.CreateFromDir(zipFile, module.Version{Path: path, Version: version}, moduleDir); err != nil {
		zipFile.Close()
		return fmt.Errorf("zip of %s: %w", moduleDir, err)
	}
	if err := zipFile.Close(); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, escVersion+".mod"), goMod, 0o644); err != nil {
		return err
	}
	info, err := json.Marshal(struct {
		Version string
		Time    time.Time
	}{version, when.UTC()})
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, escVersion+".info"), info, 0o644); err != nil {
		return err
	}
	return addToList(filepath.Join(dir, "list"), version)
}

// addToList keeps @v/list the sorted set of versions in the directory, so several releases can share one proxy.
func addToList(file, version string) error {
	data, err := os.ReadFile(file)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	versions := strings.Fields(string(data))
	if !slices.Contains(versions, version) {
		versions = append(versions, version)
	}
	semver.Sort(versions)
	return os.WriteFile(file, []byte(strings.Join(versions, "\n")+"\n"), 0o644)
}
