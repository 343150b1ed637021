/* A fake libnvidia-ml.so.1 for fixture roots. It answers from "fake-nvml.conf" in the directory
 * it was loaded from, so each fixture root carries its own GPUs and the probe's real dlopen path
 * is what the tests exercise. Lines:
 *   driver <version>
 *   init_error <nvml error code>
 *   gpu <bus id>|<name>|<uuid>|<memory bytes>|<minor>|<pci device id, 0xDDDDVVVV>
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  char bus_id[32];
  char name[96];
  char uuid[96];
  unsigned long long memory;
  unsigned minor;
  unsigned pci_device_id;
} FakeGpu;

typedef struct {
  unsigned long long total, free, used;
} Memory;

typedef struct {
  char bus_id_legacy[16];
  unsigned domain, bus, device, pci_device_id, pci_subsystem_id;
  char bus_id[32];
} PciInfo;

static FakeGpu gpus[16];
static unsigned gpu_count;
static char driver[64];
static int init_error;

static void copy_field(char* dst, size_t size, const char* src) { snprintf(dst, size, "%s", src ? src : ""); }

static void parse_gpu(char* rest) {
  if (gpu_count >= 16) return;
  FakeGpu* g = &gpus[gpu_count++];
  char* save = NULL;
  copy_field(g->bus_id, sizeof g->bus_id, strtok_r(rest, "|", &save));
  copy_field(g->name, sizeof g->name, strtok_r(NULL, "|", &save));
  copy_field(g->uuid, sizeof g->uuid, strtok_r(NULL, "|", &save));
  const char* mem = strtok_r(NULL, "|", &save);
  const char* minor = strtok_r(NULL, "|", &save);
  const char* id = strtok_r(NULL, "|\n", &save);
  g->memory = mem ? strtoull(mem, NULL, 10) : 0;
  g->minor = minor ? (unsigned)strtoul(minor, NULL, 10) : 0;
  g->pci_device_id = id ? (unsigned)strtoul(id, NULL, 16) : 0;
}

static void load_config(void) {
  Dl_info info;
  gpu_count = 0;
  driver[0] = '\0';
  init_error = 0;
  if (!dladdr((void*)load_config, &info) || !info.dli_fname) return;
  char dir[4096];
  copy_field(dir, sizeof dir, info.dli_fname);
  char path[4200];
  snprintf(path, sizeof path, "%s/fake-nvml.conf", dirname(dir));
  FILE* f = fopen(path, "r");
  if (!f) return;
  char line[512];
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\n")] = '\0';
    if (strncmp(line, "driver ", 7) == 0) copy_field(driver, sizeof driver, line + 7);
    if (strncmp(line, "init_error ", 11) == 0) init_error = atoi(line + 11);
    if (strncmp(line, "gpu ", 4) == 0) parse_gpu(line + 4);
  }
  fclose(f);
}

int nvmlInit_v2(void) {
  load_config();
  return init_error;
}
int nvmlShutdown(void) { return 0; }
int nvmlSystemGetDriverVersion(char* out, unsigned len) {
  copy_field(out, len, driver);
  return 0;
}
int nvmlDeviceGetCount_v2(unsigned* count) {
  *count = gpu_count;
  return 0;
}
int nvmlDeviceGetHandleByIndex_v2(unsigned i, void** handle) {
  if (i >= gpu_count) return 2; /* NVML_ERROR_INVALID_ARGUMENT */
  *handle = &gpus[i];
  return 0;
}
int nvmlDeviceGetName(void* h, char* out, unsigned len) {
  copy_field(out, len, ((FakeGpu*)h)->name);
  return 0;
}
int nvmlDeviceGetUUID(void* h, char* out, unsigned len) {
  copy_field(out, len, ((FakeGpu*)h)->uuid);
  return 0;
}
int nvmlDeviceGetMemoryInfo(void* h, Memory* m) {
  m->total = ((FakeGpu*)h)->memory;
  m->free = m->total;
  m->used = 0;
  return 0;
}
int nvmlDeviceGetPciInfo_v3(void* h, PciInfo* p) {
  FakeGpu* g = (FakeGpu*)h;
  memset(p, 0, sizeof *p);
  copy_field(p->bus_id, sizeof p->bus_id, g->bus_id);
  p->pci_device_id = g->pci_device_id;
  return 0;
}
int nvmlDeviceGetMinorNumber(void* h, unsigned* minor) {
  *minor = ((FakeGpu*)h)->minor;
  return 0;
}
