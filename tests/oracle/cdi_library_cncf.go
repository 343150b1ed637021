// The CDI library under the import path it moved to at 0.6: as Debian 13's docker.io 26 vendors it
// (0.7.2, in its source package only) and as Debian unstable ships it (1.0.1, which its docker.io
// 28.5 is built with). Which one is built in is the GOPATH's choice (tests/CMakeLists.txt).
package main

import "tags.cncf.io/container-device-interface/pkg/cdi"

// The names the cache offers, and the files it reports errors for.
func listDevices(dir string) ([]string, map[string][]error) {
	cache, _ := cdi.NewCache(cdi.WithSpecDirs(dir), cdi.WithAutoRefresh(false))
	return cache.ListDevices(), cache.GetErrors()
}
