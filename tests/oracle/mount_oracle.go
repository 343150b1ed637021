// mount-oracle: what dockerd's own Linux mount parser (moby's volume/mounts, from Debian
// unstable's golang-github-docker-docker-dev, dockerd 28.5) makes of a HostConfig.Binds entry or a
// HostConfig.Mounts object: the path it would bind-mount, the volume it would use, or its refusal.
// The gate's mirror (admission/mount_spec.cc) is held to it over generated sources.
//
// Input: one JSON object per line, {"bind": "SRC:DST:MODE"} or {"mount": {...a mount.Mount...}}.
// Output: one JSON array per line: ["invalid"], or [KIND, READ_ONLY, SOURCE] with KIND "bind"
// (SOURCE the path mounted), "volume" (SOURCE its name) or "other" (tmpfs, image).
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"

	"github.com/docker/docker/api/types/mount"
	"github.com/docker/docker/volume/mounts"
)

type input struct {
	Bind  *string      `json:"bind"`
	Mount *mount.Mount `json:"mount"`
}

func main() {
	parser := mounts.NewLinuxParser()
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	for in.Scan() {
		var line input
		if err := json.Unmarshal(in.Bytes(), &line); err != nil {
			fmt.Fprintln(os.Stderr, "mount-oracle: bad input line:", err)
			os.Exit(2)
		}
		var mp *mounts.MountPoint
		var err error
		if line.Bind != nil {
			mp, err = parser.ParseMountRaw(*line.Bind, "")
		} else {
			mp, err = parser.ParseMountSpec(*line.Mount)
		}
		var answer []interface{}
		switch {
		case err != nil:
			answer = []interface{}{"invalid"}
		case mp.Type == mount.TypeBind:
			answer = []interface{}{"bind", !mp.RW, mp.Source}
		case mp.Type == mount.TypeVolume:
			answer = []interface{}{"volume", !mp.RW, mp.Name}
		default:
			answer = []interface{}{"other", !mp.RW, ""}
		}
		text, _ := json.Marshal(answer)
		out.Write(text)
		out.WriteByte('\n')
	}
}
