// The CDI library as Debian unstable ships it (1.0.1, which its docker.io 28.5 is built with),
// under the import path it moved to.
package main

import "tags.cncf.io/container-device-interface/pkg/cdi"

func listDevices(dir string) []string {
	cache, _ := cdi.NewCache(cdi.WithSpecDirs(dir), cdi.WithAutoRefresh(false))
	return cache.ListDevices()
}
