// api-fields-oracle: every JSON field name a dockerd (Debian's own Go source,
// golang-github-docker-docker-dev: 20.10 with docker2010_bodies.go, 28.5 with docker28_bodies.go)
// decodes in the request bodies the gate judges, found by
// reflection over the very types dockerd decodes into, as encoding/json names them. The gate's
// table of fields (admission/api_fields.cc) must hold every one.
//
// Output: one line per field, "OBJECT NAME", OBJECT as admission::ApiObject names it.
package main

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/mount"
)

func dump(object string, t reflect.Type) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name := strings.Split(f.Tag.Get("json"), ",")[0]
		if name == "-" || f.PkgPath != "" {
			continue
		}
		if f.Anonymous && name == "" {
			inner := f.Type
			if inner.Kind() == reflect.Ptr {
				inner = inner.Elem()
			}
			dump(object, inner)
			continue
		}
		if name == "" {
			name = f.Name
		}
		fmt.Println(object, name)
	}
}

func main() {
	// The create body as runconfig.ContainerDecoder reads it (Config, HostConfig and
	// NetworkingConfig; up to 26.1 the legacy top-level HostConfig fields and Cpuset too).
	dump("create", reflect.TypeOf(createBody{}))
	dump("host_config", reflect.TypeOf(container.HostConfig{}))
	dump("update", reflect.TypeOf(container.UpdateConfig{}))
	dump("exec", reflect.TypeOf(execBody{}))
	dump("mount", reflect.TypeOf(mount.Mount{}))
	dump("bind_options", reflect.TypeOf(mount.BindOptions{}))
	dump("volume_options", reflect.TypeOf(mount.VolumeOptions{}))
	dump("volume_driver", reflect.TypeOf(mount.Driver{}))
	dump("tmpfs_options", reflect.TypeOf(mount.TmpfsOptions{}))
	dump("device_request", reflect.TypeOf(container.DeviceRequest{}))
	dump("volume_create", reflect.TypeOf(volumeCreateBody{}))
}
