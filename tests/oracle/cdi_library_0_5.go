// The CDI library as Debian 12 ships it (0.5.2), under its old import path.
package main

import "github.com/container-orchestrated-devices/container-device-interface/pkg/cdi"

// The names the cache offers, and the files it reports errors for.
func listDevices(dir string) ([]string, map[string][]error) {
	cache, _ := cdi.NewCache(cdi.WithSpecDirs(dir), cdi.WithAutoRefresh(false))
	return cache.ListDevices(), cache.GetErrors()
}
