// The types dockerd 20.10 (Debian 12) decodes the bodies the gate judges into, where later
// versions renamed them; built with the oracles against Debian 12's Go source.
package main

import (
	"github.com/docker/docker/api/types"
	"github.com/docker/docker/api/types/volume"
	"github.com/docker/docker/runconfig"
)

type createBody = runconfig.ContainerConfigWrapper
type execBody = types.ExecConfig
type volumeCreateBody = volume.VolumeCreateBody
