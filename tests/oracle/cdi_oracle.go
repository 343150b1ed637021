// cdi-oracle: which CDI names the CDI Go library (Debian 12's
// golang-github-container-orchestrated-devices-container-device-interface-dev, 0.5.2) loads from a
// spec directory, as Docker and podman build their device cache from it. The test built from this
// file judges rediacc-gpu's own reading of /etc/cdi (tests/oracle/cdi_differential.py).
//
// Usage: cdi-oracle DIR...   One JSON line per DIR: {"dir":…,"devices":[sorted names],"panic":"…"}.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"

	"github.com/container-orchestrated-devices/container-device-interface/pkg/cdi"
)

type verdict struct {
	Dir     string   `json:"dir"`
	Devices []string `json:"devices"`
	Panic   string   `json:"panic,omitempty"`
}

// The library panics on some specs (a one-letter vendor or class); the daemon would crash.
func load(dir string) (v verdict) {
	v.Dir = dir
	v.Devices = []string{}
	defer func() {
		if r := recover(); r != nil {
			v.Panic = fmt.Sprint(r)
		}
	}()
	cache, _ := cdi.NewCache(cdi.WithSpecDirs(dir), cdi.WithAutoRefresh(false))
	v.Devices = append(v.Devices, cache.ListDevices()...)
	sort.Strings(v.Devices)
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
