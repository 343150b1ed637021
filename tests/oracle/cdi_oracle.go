// cdi-oracle: which CDI names the CDI Go library loads from a spec directory, as Docker and podman
// build their device cache from it: built with cdi_library_0_5.go, Debian 12's 0.5.2
// (golang-github-container-orchestrated-devices-container-device-interface-dev), with
// cdi_library_cncf.go the 0.7.2 Docker 26 vendors or unstable's 1.0.1 (Docker 28.5's). The tests
// built from this file judge rediacc-gpu's own reading of /etc/cdi (tests/oracle/cdi_differential.py).
//
// Usage: cdi-oracle DIR...   One JSON line per DIR: {"dir":…,"devices":[sorted names],
// "broken":[sorted file names the library reports an error for],"panic":"…"}.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
)

type verdict struct {
	Dir     string   `json:"dir"`
	Devices []string `json:"devices"`
	Broken  []string `json:"broken"`
	Panic   string   `json:"panic,omitempty"`
}

// The library panics on some specs (a one-letter vendor or class); the daemon would crash.
func load(dir string) (v verdict) {
	v.Dir = dir
	v.Devices = []string{}
	v.Broken = []string{}
	defer func() {
		if r := recover(); r != nil {
			v.Panic = fmt.Sprint(r)
		}
	}()
	devices, broken := listDevices(dir)
	v.Devices = append(v.Devices, devices...)
	for path := range broken {
		v.Broken = append(v.Broken, filepath.Base(path))
	}
	sort.Strings(v.Devices)
	sort.Strings(v.Broken)
	return v
}

func main() {
	out := json.NewEncoder(os.Stdout)
	for _, dir := range os.Args[1:] {
		if err := out.Encode(load(dir)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}
