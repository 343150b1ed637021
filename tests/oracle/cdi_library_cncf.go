// The CDI library as Debian unstable ships it (1.0.1, which its docker.io 28.5 is built with),
// under the import path it moved to.
package main

import "tags.cncf.io/container-device-interface/pkg/cdi"

// The names the cache offers, and the files it reports errors for.
func listDevices(dir string) ([]string, map[string][]error) {
	cache, _ := cdi.NewCache(cdi.WithSpecDirs(dir), cdi.WithAutoRefresh(false))
	return cache.ListDevices(), cache.GetErrors()
}
