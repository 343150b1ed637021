// The types dockerd 28 (Debian unstable's docker.io 28.5) decodes the bodies the gate judges
// into: the create body lost its legacy top-level HostConfig fields (API 1.44 and later), exec and
// volume bodies were renamed. Built with the oracles against that version's Go source.
package main

import (
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/volume"
)

type createBody = container.CreateRequest
type execBody = container.ExecOptions
type volumeCreateBody = volume.CreateOptions
